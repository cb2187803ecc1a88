// What setup needs from the host: the hardware probe (shown in the TUI, used for the
// defaults) and writing it to hardware.json once the answers are in.
import { probeHardware, writeHardwareJson, type HardwareProbe } from '../host/hardware.js';
import type { SvcPaths } from '../config/paths.js';

export type { HardwareProbe } from '../host/hardware.js';

export const probeHost = (): Promise<HardwareProbe | null> => probeHardware().catch(() => null);

export const saveProbe = (paths: SvcPaths, probe: HardwareProbe): Promise<string> => writeHardwareJson(paths, probe);
