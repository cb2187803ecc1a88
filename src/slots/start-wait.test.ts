import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HealthState } from '../engines/types.js';
import type { EngineExit } from './engine-process.js';
import { FIRST_HEALTH_POLL_MS, healthPollDelay, waitUntilHealthy, type StartWait } from './start-wait.js';

describe('healthPollDelay', () => {
  it('starts short and doubles up to the interval, then stays there', () => {
    const delays = Array.from({ length: 8 }, (_, poll) => healthPollDelay(poll, 250));
    expect(delays).toEqual([FIRST_HEALTH_POLL_MS, 20, 40, 80, 160, 250, 250, 250]);
  });

  it('never exceeds a short interval and does not overflow on long loads', () => {
    expect(healthPollDelay(0, 5)).toBe(5);
    expect(healthPollDelay(100_000, 250)).toBe(250);
  });
});

describe('waitUntilHealthy', () => {
  // No delay between polls (interval 0) and no log to watch: the outcomes come from the fakes alone.
  const never = new Promise<EngineExit>(() => undefined);
  const wait = (over: Partial<StartWait> = {}): StartWait => ({
    healthIntervalMs: 0,
    logPath: join(tmpdir(), 'svc-no-such-dir', 'engine.log'),
    exited: never,
    signal: new AbortController().signal,
    onLoading: () => undefined,
    learnRuntime: async () => undefined,
    ...over,
  });
  const plan = (answers: HealthState[], loadTimeoutMs = 60_000) => {
    const asked: HealthState[] = [];
    const health = async () => {
      const answer = answers.shift() ?? 'down';
      asked.push(answer);
      return answer;
    };
    return { asked, waited: { engine: { health }, spec: { baseUrl: 'http://127.0.0.1:1' }, loadTimeoutMs } };
  };

  it('says the engine is loading while it does, and is healthy once it answers ready and has said what it runs on', async () => {
    const { waited } = plan(['down', 'loading', 'loading', 'ready']);
    let loading = 0;
    let learned = false;
    const outcome = await waitUntilHealthy(waited, wait({ onLoading: () => void loading++, learnRuntime: async () => void (learned = true) }));
    expect(outcome).toEqual({ outcome: 'healthy' });
    expect(loading).toBe(2);
    expect(learned).toBe(true);
  });

  it('an engine that exits while loading ends the wait with its exit, without another probe', async () => {
    const { waited, asked } = plan(['loading']);
    const exit = { code: 3, signal: null };
    expect(await waitUntilHealthy(waited, wait({ exited: Promise.resolve(exit) }))).toEqual({ outcome: 'exited', exit });
    expect(asked).toEqual([]);
  });

  it('an exit while the engine says what it runs on is an exit too', async () => {
    const { waited } = plan(['ready']);
    const exit = { code: null, signal: 'SIGKILL' as const };
    let exited!: (exit: EngineExit) => void;
    const learnRuntime = () => {
      exited(exit); // the engine dies while it is being asked
      return never.then(() => undefined);
    };
    const outcome = waitUntilHealthy(waited, wait({ exited: new Promise((resolve) => (exited = resolve)), learnRuntime }));
    expect(await outcome).toEqual({ outcome: 'exited', exit });
  });

  it('an interrupted start stops waiting, before a probe or after one', async () => {
    const aborted = new AbortController();
    aborted.abort();
    const before = plan(['ready']);
    expect(await waitUntilHealthy(before.waited, wait({ signal: aborted.signal }))).toEqual({ outcome: 'interrupted' });
    expect(before.asked).toEqual([]);

    const during = new AbortController();
    const after = plan([]);
    after.waited.engine.health = async () => {
      during.abort(); // a stop comes while the probe is out
      return 'ready';
    };
    expect(await waitUntilHealthy(after.waited, wait({ signal: during.signal }))).toEqual({ outcome: 'interrupted' });
  });

  it('the load deadline passed is a time-out', async () => {
    const { waited, asked } = plan(['ready'], 0);
    expect(await waitUntilHealthy(waited, wait())).toEqual({ outcome: 'timed_out' });
    expect(asked).toEqual([]);
  });
});
