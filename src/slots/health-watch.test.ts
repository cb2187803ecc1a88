import { describe, expect, it } from 'vitest';
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

/** A watch whose probes answer from a script, recording how many run at once. */
function scripted(script: HealthState[], failures = 3, probeMs = 0) {
  const reports: UnhealthyReport[] = [];
  let running = 0;
  let mostAtOnce = 0;
  let probes = 0;
  let done: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const watch = new HealthWatch({
    settings: () => ({ intervalMs: 1, failures }),
    probe: async () => {
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      await new Promise((r) => setTimeout(r, probeMs));
      running--;
      return script[probes++] ?? 'ready';
    },
    onUnhealthy: (report) => {
      reports.push(report);
      done();
    },
  });
  return { watch, reports, finished, probes: () => probes, mostAtOnce: () => mostAtOnce };
}

describe('HealthWatch', () => {
  it('reports once, after `failures` failed probes in a row; a ready probe in between resets the count', async () => {
    const run = scripted(['down', 'down', 'ready', 'loading', 'down', 'down', 'ready']);
    run.watch.start();
    await run.finished;
    expect(run.reports).toEqual([{ failures: 3, last: 'down' }]);
    expect(run.probes()).toBe(6); // it stopped probing at the report
  });

  it('never runs two probes at once for one engine, even when a probe outlasts the interval', async () => {
    const run = scripted(['down', 'down', 'down'], 3, 20);
    run.watch.start();
    await run.finished;
    expect(run.mostAtOnce()).toBe(1);
  });

  it('a probe that answers after stop() is ignored; start() begins a fresh count', async () => {
    let answer: (state: HealthState) => void = () => undefined;
    const reports: UnhealthyReport[] = [];
    let probes = 0;
    const watch = new HealthWatch({
      settings: () => ({ intervalMs: 1, failures: 1 }),
      probe: () => new Promise<HealthState>((resolve) => {
        probes++;
        answer = resolve;
      }),
      onUnhealthy: (report) => reports.push(report),
    });
    watch.start();
    while (probes < 1) await new Promise((r) => setTimeout(r, 1));
    watch.stop();
    answer('down');
    await new Promise((r) => setImmediate(r));
    expect(reports).toEqual([]);
    watch.start();
    while (probes < 2) await new Promise((r) => setTimeout(r, 1));
    answer('down');
    while (reports.length === 0) await new Promise((r) => setTimeout(r, 1));
    expect(reports).toEqual([{ failures: 1, last: 'down' }]);
  });
});
