// state.json per slot: what the supervisor knows about a running engine, so a restarted
// gateway can re-adopt it (same pid, port still healthy) instead of losing track of it.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../config/atomic.js';
import type { SlotState } from './state-machine.js';

export interface SlotStateFile {
  name: string;
  state: SlotState;
  pid: number | null;
  port: number;
  model_id: string | null;
  base_url: string | null;
  /** The engine's argv, to recognise the process when adopting it. */
  command: string[] | null;
  started_at: string | null;
  updated_at: string;
  message: string | null;
}

export const slotStateDir = (stateRoot: string, name: string) => join(stateRoot, 'slots', name);

/** Synchronous on purpose: transitions are rare, and the file must follow them in order. */
export function writeSlotState(stateRoot: string, state: SlotStateFile): void {
  const dir = slotStateDir(stateRoot, state.name);
  mkdirSync(dir, { recursive: true });
  writeFileAtomicSync(join(dir, 'state.json'), `${JSON.stringify(state, null, 2)}\n`);
}

export function readSlotState(stateRoot: string, name: string): SlotStateFile | undefined {
  try {
    const parsed = JSON.parse(readFileSync(join(slotStateDir(stateRoot, name), 'state.json'), 'utf8')) as SlotStateFile;
    return parsed.name === name ? parsed : undefined;
  } catch {
    return undefined;
  }
}
