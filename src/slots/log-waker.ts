// Noticing that a starting engine is ready without waiting out a poll delay: engines say so
// in their log ("model loaded", "listening on ..."), and the log is a file the gateway
// already owns (engine-log.ts). While a start waits, the file is watched (inotify on Linux);
// a write wakes the health poll at once, so readiness is seen within a probe of the line
// being written rather than up to a whole poll interval later. No engine's wording is
// relied on: any write wakes a probe, at most one per MIN_GAP_MS, and the timed polls go on
// as before, so an engine that logs nothing (or a filesystem without watches) loses nothing.
import { type FSWatcher, watch } from 'node:fs';

/** Least time between two probes that log writes wake (llama-server writes hundreds of lines while it loads). */
export const MIN_GAP_MS = 5;

export class LogWaker {
  private watcher: FSWatcher | undefined;
  private pending: (() => void) | undefined;
  private written = false;
  private lastWake = 0;

  /** `seen` is told after each write the watch reported has been taken (tests nap only once it was). */
  constructor(path: string, seen: () => void = () => undefined) {
    try {
      this.watcher = watch(path, { persistent: false }, () => {
        this.onWrite();
        seen();
      });
      this.watcher.on('error', () => this.close());
    } catch {
      this.watcher = undefined; // no watch: the timed polls alone
    }
  }

  /** Resolves after `ms`, or sooner once the log is written to (not sooner than MIN_GAP_MS after the last wake). */
  nap(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.pending === done) this.pending = undefined;
        this.lastWake = Date.now();
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.pending = done;
      if (this.written) this.onWrite(); // written while the last probe ran
    });
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  private onWrite(): void {
    const wake = this.pending;
    if (!wake) {
      this.written = true;
      return;
    }
    this.written = false;
    const wait = this.lastWake + MIN_GAP_MS - Date.now();
    if (wait <= 0) wake();
    else setTimeout(() => this.pending === wake && wake(), wait);
  }
}
