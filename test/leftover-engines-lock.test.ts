// stopLeftoverEngines holds the home's lock while it checks, stops and rewrites state.json:
// a real `svc serve` started on the home meanwhile refuses (exit 7, naming the task) instead
// of adopting the engine being stopped and having its state.json rewritten under it. The
// engine is a real process in its own group that ignores SIGTERM, so the stop is in progress
// until the test kills it.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { lockFileOf } from '../src/config/instance-lock.js';
import { readSlotState, writeSlotState } from '../src/config/slot-state-file.js';
import { isAlive } from '../src/lib/process.js';
import { EXIT_HOME_IN_USE } from '../src/server/exit-codes.js';
import { LEFTOVER_TASK, stopLeftoverEngines } from '../src/setup/leftover-engines.js';
import { runSvcAsync, tempHome } from './helpers/gateway.js';
import { waitFor } from './helpers/wait.js';

/** Says so once it ignores SIGTERM: a signal before that would still end it. */
const STUBBORN = "process.on('SIGTERM', () => {}); process.stdout.write('ignoring SIGTERM\\n'); setInterval(() => {}, 1000)";
const pids: number[] = [];
const homes: string[] = [];
afterEach(() => {
  for (const pid of pids.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

describe('stopping the engines a dead gateway left', () => {
  it('holds the home lock meanwhile: a gateway starting then refuses, and the lock is gone afterwards', async () => {
    const home = tempHome();
    homes.push(home.home);
    const engine = spawn(process.execPath, ['-e', STUBBORN, '--', '--port', '9'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    pids.push(engine.pid!);
    await new Promise((done) => engine.stdout.once('data', done));
    await writeSlotState(home.stateRoot, {
      name: 'chat', state: 'ready', pid: engine.pid!, port: 9, model_id: 'm', base_url: 'http://127.0.0.1:9',
      command: ['node', '-e', STUBBORN, '--', '--port', '9'], started_at: null, updated_at: new Date().toISOString(), message: null,
    });

    const stopping = stopLeftoverEngines(home.stateRoot, 120_000);
    const lock = await waitFor(() => JSON.parse(readFileSync(lockFileOf(home.stateRoot), 'utf8')) as { pid: number; task?: string }, { what: 'the home lock of the task', until: (l) => l.task === LEFTOVER_TASK });
    expect(lock.pid).toBe(process.pid);

    const serve = await runSvcAsync(['serve', '--port', '0'], { home: home.home });
    expect(serve.status, serve.stderr).toBe(EXIT_HOME_IN_USE);
    expect(serve.stderr).toContain(`is ${LEFTOVER_TASK} in this home`);

    process.kill(engine.pid!, 'SIGKILL'); // the stop's wait for the exit ends
    expect((await stopping).engines).toEqual([{ slot: 'chat', pid: engine.pid, escalated: false, stopped: true }]);
    expect(readSlotState(home.stateRoot, 'chat')).toMatchObject({ state: 'stopped', pid: null });
    expect(existsSync(lockFileOf(home.stateRoot))).toBe(false);
  });
});
