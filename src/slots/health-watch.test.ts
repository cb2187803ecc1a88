import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HealthState } from '../engines/types.js';
import { HealthWatch, nextFailureCount, type UnhealthyReport } from './health-watch.js';

describe('nextFailureCount', () => {
  it('counts probes that do not say ready, and a ready one starts over', () => {
    const seen: HealthState[] = ['down', 'loading', 'ready', 'down', 'down', 'down'];
    const counts: number[] = [];
    seen.reduce((n, probe) => (counts.push(nextFailureCount(n, probe)), counts.at(-1)!), 0);
    expect(counts).toEqual([1, 2, 0, 1, 2, 3]);
  });
});

// On a fake clock: the watch's timers and the probes' own run only when a test moves time,
// so each test says exactly which probes have happened, and "no more probes" means none in
// any amount of time, not none yet.
const INTERVAL = 1_000;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A watch whose probes answer from a script (each taking `probeMs`), recording how many run at once. */
function scripted(script: HealthState[], failures = 3, probeMs = 0) {
  const reports: UnhealthyReport[] = [];
  let running = 0;
  let mostAtOnce = 0;
  let probes = 0;
  const watch = new HealthWatch({
    settings: () => ({ intervalMs: INTERVAL, failures }),
    probe: async () => {
      const answer = script[probes++] ?? 'ready';
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      if (probeMs > 0) await new Promise((r) => setTimeout(r, probeMs));
      running--;
      return answer;
    },
    onUnhealthy: (report) => reports.push(report),
  });
  return { watch, reports, probes: () => probes, mostAtOnce: () => mostAtOnce };
}

/** A watch whose probes wait until the test answers them. */
function answeredByHand(failures: number) {
  const reports: UnhealthyReport[] = [];
  const asked: Array<(state: HealthState) => void> = [];
  const watch = new HealthWatch({
    settings: () => ({ intervalMs: INTERVAL, failures }),
    probe: () => new Promise<HealthState>((resolve) => asked.push(resolve)),
    onUnhealthy: (report) => reports.push(report),
  });
  /** Answer the latest probe and let the watch take the answer. */
  const answer = async (state: HealthState) => {
    asked.at(-1)!(state);
    await vi.advanceTimersByTimeAsync(0);
  };
  return { watch, reports, answer, probes: () => asked.length };
}

describe('HealthWatch', () => {
  it('reports once, after `failures` failed probes in a row; a ready probe in between resets the count; then probes no more', async () => {
    const run = scripted(['down', 'down', 'ready', 'loading', 'down', 'down', 'ready']);
    run.watch.start();
    await vi.advanceTimersByTimeAsync(5 * INTERVAL);
    expect([run.probes(), run.reports]).toEqual([5, []]);
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect([run.probes(), run.reports]).toEqual([6, [{ failures: 3, last: 'down' }]]);
    await vi.advanceTimersByTimeAsync(100 * INTERVAL);
    expect([run.probes(), run.reports.length]).toEqual([6, 1]);
  });

  it('never runs two probes at once for one engine, even when a probe outlasts the interval', async () => {
    const run = scripted(['down', 'down', 'down'], 3, 2.5 * INTERVAL);
    run.watch.start();
    await vi.advanceTimersByTimeAsync(3 * 3.5 * INTERVAL); // three rounds of wait-then-probe
    expect(run.reports).toEqual([{ failures: 3, last: 'down' }]);
    expect(run.mostAtOnce()).toBe(1);
  });

  it('a probe that answers after stop() is ignored; start() begins a fresh count', async () => {
    const run = answeredByHand(2);
    run.watch.start();
    await vi.advanceTimersByTimeAsync(INTERVAL);
    await run.answer('down'); // one failure counted
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(run.probes()).toBe(2);
    run.watch.stop();
    await run.answer('down'); // would be the second failure in a row
    await vi.advanceTimersByTimeAsync(100 * INTERVAL);
    expect([run.probes(), run.reports]).toEqual([2, []]);

    run.watch.start();
    await vi.advanceTimersByTimeAsync(INTERVAL);
    await run.answer('down'); // the first failure of the new count
    expect(run.reports).toEqual([]);
    await vi.advanceTimersByTimeAsync(INTERVAL);
    await run.answer('down');
    expect([run.probes(), run.reports]).toEqual([4, [{ failures: 2, last: 'down' }]]);
  });
});
