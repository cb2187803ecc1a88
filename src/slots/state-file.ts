// state.json per slot: what the supervisor knows about a running engine, so a restarted
// gateway can re-adopt it (same pid, port still healthy) instead of losing track of it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/atomic.js';
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

/**
 * One slot's state.json writer. Transitions happen while requests flow, so writes are
 * asynchronous; they run one at a time in order, and a write asked for while one is under
 * way replaces any other still waiting: the file always ends with the last state. Each write
 * is atomic (temp + rename), so a crash mid-write leaves the old file or the new one.
 */
export class SlotStateWriter {
  private waiting: SlotStateFile | null = null;
  private draining: Promise<void> | null = null;

  constructor(
    private readonly stateRoot: string,
    private readonly onError: (error: Error) => void,
  ) {}

  write(state: SlotStateFile): void {
    this.waiting = state;
    this.draining ??= this.drain();
  }

  /** Resolves once every write asked for so far is on disk (graceful shutdown waits on it). */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    try {
      for (let next = this.waiting; next; next = this.waiting) {
        this.waiting = null;
        await writeSlotState(this.stateRoot, next).catch((error: Error) => this.onError(error));
      }
    } finally {
      this.draining = null;
    }
  }
}

export async function writeSlotState(stateRoot: string, state: SlotStateFile): Promise<void> {
  // Not durable: a host crash takes the engine with it, so only a process crash matters, and
  // write-then-rename already leaves a whole file then (config/atomic.ts).
  await writeFileAtomic(join(slotStateDir(stateRoot, state.name), 'state.json'), `${JSON.stringify(state, null, 2)}\n`, { durable: false });
}

/** Synchronous: read once per slot at gateway start, before the API listens. */
export function readSlotState(stateRoot: string, name: string): SlotStateFile | undefined {
  try {
    const parsed = JSON.parse(readFileSync(join(slotStateDir(stateRoot, name), 'state.json'), 'utf8')) as SlotStateFile;
    return parsed.name === name ? parsed : undefined;
  } catch {
    return undefined;
  }
}
