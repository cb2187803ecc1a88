// The active stack: which stack was applied last, and a content hash of the slot set it
// left, so GET /api/stacks/active can say whether the live configuration drifted since
// (none, clean, modified). The record is written in the apply's change set, so it always
// matches the slot files on disk.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SvcPaths } from '../config/paths.js';
import type { SlotFile } from '../config/schema/slot.js';
import { canonicalJson } from '../protocol/canonical-json.js';
import type { StackActivePayload } from '../protocol/stacks.js';

export interface ActiveRecord {
  stack: string;
  hash: string;
  applied_at: string;
  /** Per slot, a fingerprint of its whole slot file; every slot of the set, named or not. */
  slots: Record<string, string>;
}

export const activeRecordPath = (paths: Pick<SvcPaths, 'stateRoot'>) => join(paths.stateRoot, 'stacks', 'active.json');

/** The whole validated slot file (defaults filled in), so any change to it is drift. */
const fingerprint = (config: SlotFile): string => createHash('sha256').update(canonicalJson(config)).digest('hex').slice(0, 16);

/** Fingerprints of a slot set, and the hash over all of them. */
export function slotSetHash(configs: ReadonlyMap<string, SlotFile>): { hash: string; slots: Record<string, string> } {
  const slots = Object.fromEntries([...configs].sort(([a], [b]) => a.localeCompare(b)).map(([name, config]) => [name, fingerprint(config)]));
  return { hash: `sha256:${createHash('sha256').update(canonicalJson(slots)).digest('hex')}`, slots };
}

export async function readActiveRecord(paths: Pick<SvcPaths, 'stateRoot'>): Promise<ActiveRecord | null> {
  try {
    const record = JSON.parse(await readFile(activeRecordPath(paths), 'utf8')) as ActiveRecord;
    return typeof record.stack === 'string' && typeof record.hash === 'string' ? record : null;
  } catch {
    return null;
  }
}

/** Compare the record with the slots configured now. */
export function driftOf(record: ActiveRecord | null, now: ReadonlyMap<string, SlotFile>): StackActivePayload {
  if (!record) return { status: 'none', stack: null, hash: null, current_hash: null, applied_at: null, drifted: [] };
  const current = slotSetHash(now);
  const names = new Set([...Object.keys(record.slots), ...Object.keys(current.slots)]);
  const drifted = [...names].filter((n) => record.slots[n] !== current.slots[n]).sort();
  return { status: drifted.length === 0 ? 'clean' : 'modified', stack: record.stack, hash: record.hash, current_hash: current.hash, applied_at: record.applied_at, drifted };
}
