// state.json per slot: what the supervisor knows about a running engine, so a restarted
// gateway can re-adopt it (same pid, port still healthy) instead of losing track of it.
// The record lives here, beside the instance lock, because tools that run without a
// gateway read it too: doctor (naming the engine that holds a port) and the stopping of engines a
// dead gateway left (setup/leftover-engines.ts). The gateway's queued writer is slots/state-file.ts.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SlotRunState } from '../protocol/events.js';
import { writeFileAtomic } from './atomic.js';

export interface SlotStateFile {
  name: string;
  state: SlotRunState;
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
const stateFile = (stateRoot: string, name: string) => join(slotStateDir(stateRoot, name), 'state.json');

export async function writeSlotState(stateRoot: string, state: SlotStateFile): Promise<void> {
  // Not durable: a host crash takes the engine with it, so only a process crash matters, and
  // write-then-rename already leaves a whole file then (config/atomic.ts).
  await writeFileAtomic(stateFile(stateRoot, state.name), `${JSON.stringify(state, null, 2)}\n`, { durable: false });
}

/** Synchronous, for the tools that run without a gateway: doctor, and stopping what a dead gateway left. */
export function readSlotState(stateRoot: string, name: string): SlotStateFile | undefined {
  try {
    return parseSlotState(readFileSync(stateFile(stateRoot, name), 'utf8'), name);
  } catch {
    return undefined;
  }
}

/** The gateway's read, once per slot when it adopts engines: requests wait for it, so it blocks nothing. */
export function readSlotStateAsync(stateRoot: string, name: string): Promise<SlotStateFile | undefined> {
  return readFile(stateFile(stateRoot, name), 'utf8').then((text) => parseSlotState(text, name)).catch(() => undefined);
}

/** The record, unless it is not JSON (throws) or names another slot. */
function parseSlotState(text: string, name: string): SlotStateFile | undefined {
  const parsed = JSON.parse(text) as SlotStateFile;
  return parsed.name === name ? parsed : undefined;
}
