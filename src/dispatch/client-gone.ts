// The signal that a /v1 client went away, given to undici to abort the upstream request.
/**
 * Says that the client went away: to undici, which takes any object with `on`/`once` and
 * `removeListener` as its signal, and, only when asked, as an AbortSignal. Neither an
 * EventEmitter nor an AbortController is made per request: with their listeners added and
 * removed they cost several microseconds each, on every request (docs/performance.md).
 */
export class ClientGone {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> | undefined;
  private controller: AbortController | undefined;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.controller?.abort();
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  /** undici's side: it listens for 'abort' (once) and removes its listener when the request ends. */
  on(_event: 'abort', listener: () => void): this {
    (this.listeners ??= []).push(listener);
    return this;
  }

  once(event: 'abort', listener: () => void): this {
    return this.on(event, listener); // 'abort' fires at most once
  }

  removeListener(_event: 'abort', listener: () => void): this {
    const at = this.listeners?.indexOf(listener) ?? -1;
    if (at >= 0) this.listeners!.splice(at, 1);
    return this;
  }

  /** An AbortSignal that follows this one (made on first use). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }
}

/** Call `listener` once when the caller leaves (either kind of signal). */
export function whenGone(signal: AbortSignal | ClientGone | undefined, listener: () => void): void {
  if (signal instanceof ClientGone) signal.once('abort', listener);
  else signal?.addEventListener('abort', listener, { once: true });
}

/** The signal as an AbortSignal (what a slot start takes). */
export const abortSignalOf = (signal: AbortSignal | ClientGone | undefined): AbortSignal | undefined => (signal instanceof ClientGone ? signal.signal : signal);
