// When a crashed process (an engine, a tool server, the memory database) is restarted, and
// when its supervisor gives up (pure). Backoff doubles per recent crash; N crashes inside the
// window is a crash loop, and the process stays in error instead of flapping.

export interface RestartPolicy {
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** This many crashes inside the window stops automatic restarts. */
  crashLoopCount: number;
  crashLoopWindowMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  crashLoopCount: 5,
  crashLoopWindowMs: 5 * 60_000,
};

export type RestartDecision = { restart: true; delayMs: number } | { restart: false; reason: 'crash_loop' };

/** `crashTimes` are epoch ms of crashes, the latest included. */
export function decideRestart(crashTimes: readonly number[], now: number, policy: RestartPolicy = DEFAULT_RESTART_POLICY): RestartDecision {
  const recent = crashTimes.filter((t) => now - t <= policy.crashLoopWindowMs).length;
  if (recent >= policy.crashLoopCount) return { restart: false, reason: 'crash_loop' };
  const delayMs = Math.min(policy.backoffBaseMs * 2 ** Math.max(0, recent - 1), policy.backoffMaxMs);
  return { restart: true, delayMs };
}
