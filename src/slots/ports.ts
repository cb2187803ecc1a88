// Port choice for new slots: the first port of [slots].port_range_start..port_range_end that
// no slot file claims (valid or not: a broken file still claims its port), no configured
// slot uses, and nothing on the host listens on.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResolvedConfig } from '../config/load.js';
import { readTomlFile, type TomlDoc } from '../config/toml.js';
import { SlotError } from '../protocol/errors.js';
import { POOL_PORT_LIMIT, SLOT_PORT_MAX, SLOT_PORT_MIN } from '../protocol/vocabulary.js';
import { portIsFree } from '../lib/process.js';

/** Ports of every slot file on disk. */
async function portsOnDisk(slotsDir: string): Promise<Set<number>> {
  const ports = new Set<number>();
  let names: string[];
  try {
    names = (await readdir(slotsDir)).filter((n) => n.endsWith('.toml'));
  } catch {
    return ports;
  }
  for (const file of names) {
    const read = await readTomlFile(join(slotsDir, file), `slots/${file}`);
    const port = read.status === 'ok' ? (read.doc.slot as TomlDoc | undefined)?.port : undefined;
    if (typeof port === 'number') ports.add(port);
  }
  return ports;
}

/** The port a new slot gets; slot.no_free_port when the pool is used up. */
export async function pickSlotPort(config: ResolvedConfig, isFree: (port: number) => Promise<boolean> = portIsFree): Promise<number> {
  const { port_range_start: start, port_range_end: end } = config.svc.slots;
  const claimed = await portsOnDisk(config.paths.slotsDir);
  for (const entry of config.slots) claimed.add(entry.config.slot.port);
  for (let port = start; port <= end; port++) {
    if (!claimed.has(port) && (await isFree(port))) return port;
  }
  throw new SlotError('slot.no_free_port', `no free port in the pool ${start}-${end} ([slots].port_range_start/port_range_end): every port is used by a slot file or by another process; pass a port (${SLOT_PORT_MIN}-${SLOT_PORT_MAX}), or widen the pool (within ${SLOT_PORT_MIN}-${POOL_PORT_LIMIT - 1})`, {
    range: [start, end],
    claimed: [...claimed].filter((p) => p >= start && p <= end).sort((a, b) => a - b),
  });
}
