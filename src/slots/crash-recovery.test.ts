// CrashRecovery on its own: a fake engine and log, an injected clock and timer. Nothing
// waits: a scheduled restart is a recorded task the test runs when it wants.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SlotError } from '../protocol/errors.js';
import { CrashRecovery, type SlotFailure } from './crash-recovery.js';
import type { SlotState } from './state-machine.js';

const stateRoot = mkdtempSync(join(tmpdir(), 'svc-recovery-'));
const policy = { backoffBaseMs: 100, backoffMaxMs: 400, crashLoopCount: 3, crashLoopWindowMs: 60_000 };

function harness() {
  let now = 1_000_000;
  let state: SlotState = 'ready';
  const scheduled: Array<{ task: () => void; delayMs: number; cancelled: boolean }> = [];
  const due: number[] = [];
  const errors: Array<{ reason: string; failure: SlotFailure }> = [];
  const engine = { pid: 4242 as number | null, kills: 0, kill: async () => void engine.kills++ };
  let persisted = 0;
  const recovery = new CrashRecovery({
    slot: 'chat',
    policy,
    stateRoot,
    log: { pump: async () => undefined, recent: () => ['engine: loading', 'engine: boom'] },
    engine,
    state: () => state,
    enterError: (reason, failure) => {
      state = 'error';
      errors.push({ reason, failure });
    },
    changed: () => void persisted++,
    onRestartDue: (failure) => due.push(failure),
    now: () => now,
    schedule: (task, delayMs) => {
      const entry = { task, delayMs, cancelled: false };
      scheduled.push(entry);
      return () => void (entry.cancelled = true);
    },
  });
  return {
    recovery, engine, scheduled, due, errors,
    setState: (s: SlotState) => void (state = s),
    advance: (ms: number) => void (now += ms),
    persisted: () => persisted,
    /** Run the pending restarts (as their timers would), once each. */
    fire: () => scheduled.filter((s) => !s.cancelled).forEach((s) => ((s.cancelled = true), s.task())),
  };
}

describe('CrashRecovery', () => {
  it('records a crash with the engine\'s last lines, moves to error, and restarts after a backoff that doubles', async () => {
    const h = harness();
    await h.recovery.crashed({ code: null, signal: 'SIGKILL' }, 4242);
    expect(h.errors).toHaveLength(1);
    expect(h.errors[0]!.reason).toBe('engine exited (killed by SIGKILL)');
    expect(h.recovery.lastFailure).toMatchObject({ code: 'slot.load_failed', signal: 'SIGKILL', stderr_tail: 'engine: loading\nengine: boom' });
    expect(h.scheduled.map((s) => s.delayMs)).toEqual([100]);
    h.fire();
    expect(h.due).toEqual([1]);
    expect(h.recovery.takeRestart(1)).toBe(true);
    expect(h.recovery.restarts).toBe(1);

    h.setState('ready');
    await h.recovery.crashed({ code: 3, signal: null }, 4242);
    expect(h.scheduled.map((s) => s.delayMs)).toEqual([100, 200]);
  });

  it('stops restarting on a crash loop and says so in the failure', async () => {
    const h = harness();
    for (let i = 0; i < 3; i++) {
      h.setState('ready');
      await h.recovery.crashed({ code: 1, signal: null }, 4242);
      h.advance(10);
    }
    expect(h.scheduled).toHaveLength(2);
    expect(h.recovery.lastFailure?.code).toBe('slot.crash_loop');
    expect(h.recovery.lastFailure?.message).toMatch(/^engine exited \(exit code 1\); crashed 3 times in 60 s, not restarting \(svc slot load chat to try again\)$/);
    expect(h.persisted()).toBe(1);
    h.recovery.reset(); // a user's load starts over
    h.setState('ready');
    await h.recovery.crashed({ code: 1, signal: null }, 4242);
    expect(h.scheduled).toHaveLength(3);
  });

  it('forgets crashes older than the window (the injected clock moves past it)', async () => {
    const h = harness();
    for (let i = 0; i < 2; i++) {
      h.setState('ready');
      await h.recovery.crashed({ code: 1, signal: null }, 4242);
    }
    h.advance(policy.crashLoopWindowMs + 1);
    h.setState('ready');
    await h.recovery.crashed({ code: 1, signal: null }, 4242);
    expect(h.scheduled.map((s) => s.delayMs)).toEqual([100, 200, 100]);
    expect(h.recovery.lastFailure?.code).toBe('slot.load_failed');
  });

  it('a restart answers only the failure it was scheduled for, and only while the slot is in error', async () => {
    const h = harness();
    await h.recovery.crashed({ code: 1, signal: null }, 4242);
    h.setState('ready');
    await h.recovery.crashed({ code: 1, signal: null }, 4242);
    expect(h.recovery.takeRestart(1)).toBe(false); // a newer failure took over
    expect(h.recovery.takeRestart(2)).toBe(true);
    h.setState('stopped');
    expect(h.recovery.takeRestart(2)).toBe(false); // a stop came meanwhile
    expect(h.recovery.restarts).toBe(1);
  });

  it('news of an engine that is no longer the one serving is dropped', async () => {
    const h = harness();
    await h.recovery.crashed({ code: 1, signal: null }, 1111); // another pid
    h.setState('stopping');
    await h.recovery.crashed({ code: 1, signal: null }, 4242);
    h.setState('ready');
    h.recovery.detach();
    await h.recovery.crashed({ code: 1, signal: null }, 4242);
    expect(h.errors).toEqual([]);
    expect(h.scheduled).toEqual([]);
  });

  it('an unhealthy engine is killed before its restart is scheduled; a stop during the kill cancels it', async () => {
    const h = harness();
    await h.recovery.unhealthy({ failures: 2, last: 'down' });
    expect(h.engine.kills).toBe(1);
    expect(h.recovery.lastFailure).toMatchObject({ code: 'slot.unhealthy' });
    expect(h.errors[0]!.reason).toBe('engine stopped answering: 2 health probe(s) in a row failed (last: down; [slots].health_failures)');
    expect(h.scheduled).toHaveLength(1);

    const stopped = harness();
    stopped.engine.kill = async () => stopped.setState('stopped');
    await stopped.recovery.unhealthy({ failures: 2, last: 'down' });
    expect(stopped.scheduled).toEqual([]);
  });

  it('a failed start is a SlotError carrying the failure; a binary that cannot run is not retried', async () => {
    const h = harness();
    h.setState('starting');
    const error = await h.recovery.exitedWhileLoading({ code: 3, signal: null });
    expect(error).toBeInstanceOf(SlotError);
    expect(error).toMatchObject({ code: 'slot.load_failed', message: 'slot chat: engine exited while loading (exit code 3)' });
    expect(error.details).toMatchObject({ slot: 'chat', exit_code: 3, stderr_tail: 'engine: loading\nengine: boom' });
    expect(h.scheduled).toHaveLength(1);

    h.setState('starting');
    const spawn = await h.recovery.exitedWhileLoading({ code: null, signal: null, error: new Error('spawn ENOENT') });
    expect(spawn).toMatchObject({ code: 'slot.spawn_failed', message: 'slot chat: engine could not run: spawn ENOENT' });
    expect(h.scheduled).toHaveLength(1);
  });

  it('a start or a stop cancels a pending restart; a refusal is shown but not counted', async () => {
    const h = harness();
    await h.recovery.crashed({ code: 1, signal: null }, 4242);
    h.recovery.cancel();
    h.fire();
    expect(h.due).toEqual([]);
    h.recovery.refused(new SlotError('slot.port_in_use', 'slot chat: port 8081 is already in use by another process'));
    expect(h.recovery.lastFailure).toMatchObject({ code: 'slot.port_in_use' });
    expect(h.persisted()).toBe(1);
    expect(h.recovery.takeRestart(1)).toBe(true); // the refusal added no failure
    h.recovery.clear();
    expect(h.recovery.lastFailure).toBeNull();
  });
});
