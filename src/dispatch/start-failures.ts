// Slots whose start a /v1 request saw fail, so that resolution prefers a twin that can
// start (docs/routing.md, Preference). A start can fail before an engine runs at all (no
// llama-server binary, a missing model file): the slot then stays stopped with nothing in
// its view to say so. A failure no longer counts once the slot started after it (its view's
// started_at is later), or once the configuration changed (a reload or a slot edit gives a
// new config object: the fix may be in it).
import { SvcError } from '../protocol/errors.js';

/** Failures that say the slot cannot start as configured; busy or transient ones are not. */
const TRANSIENT = new Set(['slot.capacity', 'slot.not_ready', 'slot.disabled', 'gpu.image_mode', 'gpu.inference_mode']);

export class StartFailures {
  /** slot → the configuration it failed under, and when (ms since the epoch) */
  private readonly failed = new Map<string, { config: object; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Remember a failed start of `slot` under `config`, when the error says it cannot start. */
  record(slot: string, config: object, error: unknown): void {
    if (!(error instanceof SvcError) || !error.code.startsWith('slot.') || TRANSIENT.has(error.code)) return;
    this.failed.set(slot, { config, at: this.now() });
  }

  /** Whether `slot` failed to start under this same configuration, and has not started since (`startedAt`, ISO, from its view). */
  has(slot: string, config: object, startedAt: string | null): boolean {
    const failure = this.failed.get(slot);
    if (failure === undefined) return false;
    if (failure.config !== config || (startedAt !== null && Date.parse(startedAt) > failure.at)) {
      this.failed.delete(slot);
      return false;
    }
    return true;
  }
}
