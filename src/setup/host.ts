// What setup needs from the host: the hardware probe (shown in the TUI, used for the
// defaults) and writing it to hardware.json once the answers are in.
import { probeHardware, writeHardwareJson } from '../host/hardware.js';
import type { HardwareProbe } from '../protocol/hardware.js';
import type { SvcPaths } from '../config/paths.js';

export type { HardwareProbe } from '../protocol/hardware.js';

export const probeHost = (): Promise<HardwareProbe | null> => probeHardware().catch(() => null);

export const saveProbe = (paths: SvcPaths, probe: HardwareProbe): Promise<string> => writeHardwareJson(paths, probe);
