// Failed token verifications per client. Past the limit a client is refused before any
// argon2 work, so a flood of bad tokens costs a map lookup each, not 20 ms of CPU.
// Valid tokens already verified never reach this (the verifier's cache answers first).
// Failures count against the exact address and, for IPv6, against its /64 as well: one
// host may hold the whole /64 and rotate through it (issue 22), so the /64 has a budget too.
import { clientKeys } from '../lib/addresses.js';

export interface FailureLimitOptions {
  /** Failures allowed from one address in one window before it is refused. */
  readonly limit: number;
  /** Failures allowed from one IPv6 /64 (all its addresses together) in one window. */
  readonly networkLimit: number;
  readonly windowMs: number;
  /** Most keys (addresses and /64s) remembered; the oldest window is forgotten first. */
  readonly maxClients: number;
  readonly now?: () => number;
}

interface Window {
  start: number;
  failures: number;
}

/**
 * A /64 may be a whole home or office network, so it gets twice one address's budget:
 * a few machines there do not lock each other out, and a host rotating through its
 * addresses still gets 20 guesses a minute, not 10 per address.
 */
export const DEFAULT_FAILURE_LIMIT: FailureLimitOptions = { limit: 10, networkLimit: 20, windowMs: 60_000, maxClients: 10_000 };

export class FailureLimit {
  private readonly windows = new Map<string, Window>();
  private readonly now: () => number;

  constructor(private readonly options: FailureLimitOptions = DEFAULT_FAILURE_LIMIT) {
    this.now = options.now ?? Date.now;
  }

  /** Seconds until this client may try again, or 0 when it may try now. */
  retryAfterS(client: string): number {
    const { address, network } = clientKeys(client);
    const byAddress = this.wait(address, this.options.limit);
    return network === undefined ? byAddress : Math.max(byAddress, this.wait(network, this.options.networkLimit));
  }

  fail(client: string): void {
    const { address, network } = clientKeys(client);
    this.count(address);
    if (network !== undefined) this.count(network);
  }

  private wait(key: string, limit: number): number {
    const window = this.current(key);
    if (!window || window.failures < limit) return 0;
    return Math.max(1, Math.ceil((window.start + this.options.windowMs - this.now()) / 1000));
  }

  private count(key: string): void {
    const window = this.current(key) ?? { start: this.now(), failures: 0 };
    window.failures += 1;
    // Re-inserted last, so the map's first key is the one heard from least recently.
    this.windows.delete(key);
    this.windows.set(key, window);
    if (this.windows.size > this.options.maxClients) this.windows.delete(this.windows.keys().next().value!);
  }

  private current(key: string): Window | undefined {
    const window = this.windows.get(key);
    if (window && this.now() - window.start >= this.options.windowMs) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }
}
