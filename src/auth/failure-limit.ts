// Failed token verifications per client address. Past the limit a client is refused before
// any argon2 work, so a flood of bad tokens costs a map lookup each, not 20 ms of CPU.
// Valid tokens already verified never reach this (the verifier's cache answers first).

export interface FailureLimitOptions {
  /** Failures allowed in one window before the client is refused. */
  readonly limit: number;
  readonly windowMs: number;
  /** Most addresses remembered; the oldest window is forgotten first. */
  readonly maxClients: number;
  readonly now?: () => number;
}

interface Window {
  start: number;
  failures: number;
}

export const DEFAULT_FAILURE_LIMIT: FailureLimitOptions = { limit: 10, windowMs: 60_000, maxClients: 10_000 };

export class FailureLimit {
  private readonly windows = new Map<string, Window>();
  private readonly now: () => number;

  constructor(private readonly options: FailureLimitOptions = DEFAULT_FAILURE_LIMIT) {
    this.now = options.now ?? Date.now;
  }

  /** Seconds until this client may try again, or 0 when it may try now. */
  retryAfterS(client: string): number {
    const window = this.current(client);
    if (!window || window.failures < this.options.limit) return 0;
    return Math.max(1, Math.ceil((window.start + this.options.windowMs - this.now()) / 1000));
  }

  fail(client: string): void {
    const window = this.current(client) ?? { start: this.now(), failures: 0 };
    window.failures += 1;
    // Re-inserted last, so the map's first key is the client heard from least recently.
    this.windows.delete(client);
    this.windows.set(client, window);
    if (this.windows.size > this.options.maxClients) this.windows.delete(this.windows.keys().next().value!);
  }

  private current(client: string): Window | undefined {
    const window = this.windows.get(client);
    if (window && this.now() - window.start >= this.options.windowMs) {
      this.windows.delete(client);
      return undefined;
    }
    return window;
  }
}
