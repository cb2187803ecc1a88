// `metrics.slot` events: every METRICS_EVENT_MS, one per slot whose figures differ from the
// last ones sent. Sampled from the side, on a timer: the /v1 hot path does no work for it.
// A slot that never served a request starts from the idle figures, so an idle gateway
// publishes nothing at all.
import type { SlotMetrics } from '../dispatch/metrics.js';
import type { EventBus } from '../events/bus.js';
import type { SlotMetricsData } from '../protocol/events.js';
import type { SlotViewPayload } from '../protocol/slots.js';

export const METRICS_EVENT_MS = 2_000;

const idle = (slot: string): SlotMetricsData => ({ slot, tokens_per_second: 0, in_flight: 0, ttft_ms_avg: null, requests: { ok: 0, error: 0, cancelled: 0 } });

export class SlotMetricsEvents {
  /** The last figures sent per slot, as JSON (the comparison key). */
  private readonly sent = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly bus: EventBus,
    private readonly metrics: SlotMetrics,
    private readonly views: () => SlotViewPayload[],
    private readonly everyMs = METRICS_EVENT_MS,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One sampling round; returns how many events it published. */
  tick(): number {
    let published = 0;
    const present = new Set<string>();
    for (const view of this.views()) {
      present.add(view.name);
      const data = this.figures(view);
      const key = JSON.stringify(data);
      if (key === (this.sent.get(view.name) ?? JSON.stringify(idle(view.name)))) continue;
      this.sent.set(view.name, key);
      this.bus.publish({ type: 'metrics.slot', source: `slot:${view.name}`, message: this.line(data), data });
      published++;
    }
    for (const name of this.sent.keys()) if (!present.has(name)) this.sent.delete(name);
    return published;
  }

  private figures(view: SlotViewPayload): SlotMetricsData {
    const snapshot = this.metrics.snapshot(view.name);
    return { slot: view.name, tokens_per_second: snapshot.tokens_per_second, in_flight: view.in_flight, ttft_ms_avg: snapshot.ttft_ms_avg, requests: snapshot.requests };
  }

  private line(data: SlotMetricsData): string {
    const { ok, error, cancelled } = data.requests;
    return `slot ${data.slot}: ${data.tokens_per_second} tok/s, ${data.in_flight} in flight, ${ok + error + cancelled} requests`;
  }
}
