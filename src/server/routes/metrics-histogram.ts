// The two per-slot latency histograms of GET /api/metrics, kept here rather than in
// prom-client: they are observed as requests end, from the gateway's start, while prom-client
// is loaded only when /api/metrics is first scraped (docs/performance.md). Rendered in the
// Prometheus text format (0.0.4), as prom-client renders its own.
export class SlotHistogram {
  private readonly bySlot = new Map<string, { counts: number[]; sum: number; count: number }>();

  constructor(
    readonly name: string,
    private readonly help: string,
    /** Upper bounds, ascending; +Inf is implied. */
    private readonly buckets: readonly number[],
  ) {}

  observe(slot: string, value: number): void {
    let series = this.bySlot.get(slot);
    if (!series) this.bySlot.set(slot, (series = { counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) series.counts[i]!++;
    series.sum += value;
    series.count++;
  }

  remove(slot: string): void {
    this.bySlot.delete(slot);
  }

  /** The histogram's lines: cumulative buckets, +Inf, sum and count per slot. */
  text(): string {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} histogram`];
    for (const [slot, series] of this.bySlot) {
      const label = `slot="${escapeLabel(slot)}"`;
      this.buckets.forEach((bound, i) => lines.push(`${this.name}_bucket{le="${bound}",${label}} ${series.counts[i]}`));
      lines.push(`${this.name}_bucket{le="+Inf",${label}} ${series.count}`, `${this.name}_sum{${label}} ${series.sum}`, `${this.name}_count{${label}} ${series.count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

const escapeHelp = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
