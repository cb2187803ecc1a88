// Watching a ready engine (the fail-watcher): an engine can
// stop answering while its process lives (a deadlock, a wedged GPU driver), and no exit
// event says so. One probe per interval, never two at once for one engine, off the request
// path; `failures` probes in a row that do not say ready (a probe that times out included)
// make it unhealthy. Requests in flight do not excuse a failed probe: llama-server and the
// built-in engine answer /health while they generate, and a hung engine is exactly one
// whose requests never end. The settings are read at each probe ([slots] keys apply live).
import type { HealthState } from '../engines/types.js';

export interface HealthWatchSettings {
  /** Between the end of one probe and the start of the next; 0 disables the watch. */
  intervalMs: number;
  /** Failed probes in a row that make the engine unhealthy (at least 1). */
  failures: number;
}

export interface UnhealthyReport {
  failures: number;
  /** What the last probe saw. */
  last: HealthState;
}

export interface HealthWatchOptions {
  settings: () => HealthWatchSettings;
  /** One bounded probe; it must resolve (to 'down' on a timeout) within its own deadline. */
  probe: () => Promise<HealthState>;
  onUnhealthy: (report: UnhealthyReport) => void;
}

/** While the watch is disabled (interval 0), look at the setting again this often. */
const DISABLED_RECHECK_MS = 5_000;

/** The count of failed probes in a row after one more probe (pure). */
export function nextFailureCount(failures: number, probe: HealthState): number {
  return probe === 'ready' ? 0 : failures + 1;
}

export class HealthWatch {
  private timer: NodeJS.Timeout | null = null;
  /** Bumped by start and stop: a probe that returns into another watch period is ignored. */
  private generation = 0;
  private failures = 0;

  constructor(private readonly options: HealthWatchOptions) {}

  start(): void {
    this.stop();
    this.failures = 0;
    this.schedule(this.generation);
  }

  stop(): void {
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(generation: number): void {
    const { intervalMs } = this.options.settings();
    this.timer = setTimeout(() => void this.probeOnce(generation), intervalMs > 0 ? intervalMs : DISABLED_RECHECK_MS);
    this.timer.unref();
  }

  private async probeOnce(generation: number): Promise<void> {
    this.timer = null;
    const settings = this.options.settings();
    if (settings.intervalMs > 0) {
      const seen = await this.options.probe().catch((): HealthState => 'down');
      if (generation !== this.generation) return;
      this.failures = nextFailureCount(this.failures, seen);
      if (this.failures >= Math.max(1, settings.failures)) {
        this.stop();
        return this.options.onUnhealthy({ failures: this.failures, last: seen });
      }
    }
    this.schedule(generation);
  }
}
