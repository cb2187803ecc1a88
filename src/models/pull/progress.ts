// A running pull's numbers: bytes done, the rate over the last few seconds, the ETA, and a
// `pull.progress` event at each 10 %. Listeners hear at most every 250 ms (the SSE stream
// thins that to its 0.5 s), so a fast download does not flood anyone.
import type { PullFileProgress, PullJobPayload } from '../../protocol/pulls.js';

const WINDOW_MS = 5_000;
const NOTIFY_MS = 250;

export class Progress {
  private readonly samples: Array<[number, number]> = [];
  private lastNotify = 0;
  private lastTenth: number;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly job: PullJobPayload,
    private readonly onTenth: (pct: number) => void,
    private readonly notify: () => void,
  ) {
    this.lastTenth = this.tenth();
    this.samples.push([Date.now(), job.bytes_done]);
    // The rate falls to 0 during a stall even though no bytes arrive to say so.
    this.timer = setInterval(() => this.update(true), 1_000);
    this.timer.unref();
  }

  add(file: PullFileProgress, bytes: number): void {
    file.bytes_done += bytes;
    this.job.bytes_done += bytes;
    this.job.bytes_fetched += bytes;
    this.update(false);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private update(tick: boolean): void {
    const at = Date.now();
    if (!tick && at - this.lastNotify < NOTIFY_MS) return;
    this.lastNotify = at;
    this.samples.push([at, this.job.bytes_done]);
    while (this.samples.length > 2 && at - this.samples[0]![0] > WINDOW_MS) this.samples.shift();
    const [t0, b0] = this.samples[0]!;
    const rate = at > t0 ? ((this.job.bytes_done - b0) * 1000) / (at - t0) : 0;
    this.job.rate = Math.round(rate);
    this.job.eta_s = rate > 0 ? Math.ceil((this.job.bytes_total - this.job.bytes_done) / rate) : null;
    const tenth = this.tenth();
    if (tenth > this.lastTenth) {
      this.lastTenth = tenth;
      this.onTenth(tenth * 10);
    }
    this.notify();
  }

  private tenth(): number {
    return this.job.bytes_total > 0 ? Math.floor((this.job.bytes_done / this.job.bytes_total) * 10) : 0;
  }
}
