// The gateway's writer of each slot's state.json (the record itself: config/slot-state-file.ts).
import { writeSlotState, type SlotStateFile } from '../config/slot-state-file.js';

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
