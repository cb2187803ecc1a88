// Waiting for a starting engine to answer healthy (DESIGN.md, "Slot lifecycle": starting →
// warming → ready). The adapter's health check is polled on a doubling delay, and woken early
// by writes to the engine's log (log-waker.ts), until the engine is healthy and has said what
// it runs on, exits, the start is interrupted or the load deadline passes. It moves no state:
// the runtime turns the outcome into a transition.
import { HEALTH_TIMEOUT_MS } from '../engines/llama-server/health.js';
import type { EngineAdapter } from '../engines/types.js';
import type { EngineExit } from './engine-process.js';
import { LogWaker } from './log-waker.js';
import type { StartPlan } from './start-plan.js';

/** The first health poll of a start comes this soon; the delay then doubles up to the interval. */
export const FIRST_HEALTH_POLL_MS = 10;

/**
 * How long to wait before health poll number `poll` (0-based): 10, 20, 40, ... ms, capped at
 * `intervalMs`. A fast engine is noticed within a few ms of turning ready instead of up to
 * a whole interval later (the bench's cold-slot figure, docs/performance.md); a slow one is
 * polled at the interval as before, after a handful of early polls.
 */
export function healthPollDelay(poll: number, intervalMs: number): number {
  return Math.min(intervalMs, FIRST_HEALTH_POLL_MS * 2 ** Math.min(poll, 20));
}

/** What the wait reads of the plan: whom to ask (the adapter, where the engine answers) and for how long. */
export type WaitedPlan = { engine: Pick<EngineAdapter, 'health'>; spec: Pick<StartPlan['spec'], 'baseUrl'>; loadTimeoutMs: number };

export interface StartWait {
  healthIntervalMs: number;
  /** The engine's log file, whose writes wake a poll early. */
  logPath: string;
  exited: Promise<EngineExit>;
  /** Aborted when a stop takes over the start. */
  signal: AbortSignal;
  /** The engine answers but is still loading its model. */
  onLoading: () => void;
  /** Once healthy: ask the engine what it runs on, so its view shows that from the start. */
  learnRuntime: () => Promise<void>;
}

export type StartWaitOutcome =
  | { outcome: 'healthy' }
  | { outcome: 'exited'; exit: EngineExit }
  | { outcome: 'interrupted' }
  | { outcome: 'timed_out' };

export async function waitUntilHealthy(plan: WaitedPlan, wait: StartWait): Promise<StartWaitOutcome> {
  const waker = new LogWaker(wait.logPath);
  try {
    return await pollHealth(plan, wait, waker);
  } finally {
    waker.close();
  }
}

async function pollHealth(plan: WaitedPlan, wait: StartWait, waker: LogWaker): Promise<StartWaitOutcome> {
  const deadline = Date.now() + plan.loadTimeoutMs;
  for (let poll = 0; Date.now() < deadline; poll++) {
    if (wait.signal.aborted) return { outcome: 'interrupted' };
    const exit = await Promise.race([wait.exited, waker.nap(healthPollDelay(poll, wait.healthIntervalMs)).then(() => undefined)]);
    if (exit) return { outcome: 'exited', exit };
    const health = await plan.engine.health(plan.spec.baseUrl, AbortSignal.timeout(HEALTH_TIMEOUT_MS)).catch(() => 'down' as const);
    if (wait.signal.aborted) return { outcome: 'interrupted' };
    if (health === 'loading') wait.onLoading();
    if (health === 'ready') return learnRuntime(wait);
  }
  return { outcome: 'timed_out' };
}

async function learnRuntime(wait: StartWait): Promise<StartWaitOutcome> {
  const exit = await Promise.race([wait.exited, wait.learnRuntime().then(() => undefined)]);
  if (wait.signal.aborted) return { outcome: 'interrupted' };
  return exit ? { outcome: 'exited', exit } : { outcome: 'healthy' };
}
