// The sparklines' figures: the last samples of each slot's `metrics.slot` events, kept in
// the page (the gateway publishes them; nothing polls). An external store so that a card
// re-renders only when its own slot's series changes.

export interface MetricsSeries {
  /** Seconds since the epoch, one per sample. */
  t: number[];
  tokensPerSecond: number[];
  /** null where no streamed request had finished yet. */
  ttftMs: Array<number | null>;
}

export const HISTORY_SAMPLES = 60;

const EMPTY: MetricsSeries = { t: [], tokensPerSecond: [], ttftMs: [] };

export class MetricsHistory {
  private readonly series = new Map<string, MetricsSeries>();
  private readonly listeners = new Set<() => void>();

  /** Adds one sample; a series keeps the newest HISTORY_SAMPLES. */
  add(slot: string, atMs: number, tokensPerSecond: number, ttftMs: number | null): void {
    const old = this.series.get(slot) ?? EMPTY;
    const keep = (values: readonly unknown[]) => Math.max(0, values.length + 1 - HISTORY_SAMPLES);
    const from = keep(old.t);
    // A new object each time: useSyncExternalStore compares snapshots by identity.
    this.series.set(slot, {
      t: [...old.t.slice(from), atMs / 1000],
      tokensPerSecond: [...old.tokensPerSecond.slice(from), tokensPerSecond],
      ttftMs: [...old.ttftMs.slice(from), ttftMs],
    });
    for (const listener of this.listeners) listener();
  }

  get(slot: string): MetricsSeries {
    return this.series.get(slot) ?? EMPTY;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}
