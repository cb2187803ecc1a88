// hardware.json: the last probe, cached under the config root so that `svc slot create`,
// setup and the API read the host's hardware without probing again. Written atomically; a
// file that is missing, damaged or of another schema reads as no probe at all.
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/atomic.js';
import type { SvcPaths } from '../../config/paths.js';
import { ConfigError } from '../../protocol/errors.js';
import { isHardwareProbe, type HardwareProbe } from '../../protocol/hardware.js';
import { readText } from './sysfs.js';

export function hardwareJsonPath(paths: Pick<SvcPaths, 'configRoot'>): string {
  return join(paths.configRoot, 'hardware.json');
}

/** Write `<config root>/hardware.json` atomically; a failure leaves the previous file. */
export async function writeHardwareJson(paths: Pick<SvcPaths, 'configRoot'>, probe: HardwareProbe): Promise<string> {
  const target = hardwareJsonPath(paths);
  try {
    await writeFileAtomic(target, `${JSON.stringify(probe, null, 2)}\n`);
  } catch (error) {
    throw new ConfigError('config.write_failed', `could not write ${target}: ${(error as Error).message}; the previous file is unchanged`, { file: target }, { cause: error });
  }
  return target;
}

/** The cached probe; null when it is missing, unreadable, not JSON or not this schema. */
export async function readHardwareJson(paths: Pick<SvcPaths, 'configRoot'>): Promise<HardwareProbe | null> {
  const text = await readText(hardwareJsonPath(paths), false);
  if (text === null) return null;
  try {
    const parsed = JSON.parse(text) as unknown;
    return isHardwareProbe(parsed) ? parsed : null;
  } catch {
    return null;
  }
}
