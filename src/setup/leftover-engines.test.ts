// stopLeftoverEngines on a real state root with real processes standing in for engines:
// detached (their own process group, as engines are) and named by a state.json.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockFileOf } from '../config/instance-lock.js';
import { isAlive, waitForExit } from '../lib/process.js';
import { stopLeftoverEngines } from './leftover-engines.js';
import { readSlotState, writeSlotState } from '../config/slot-state-file.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.pid && isAlive(child.pid)) process.kill(child.pid, 'SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function stateRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-leftover-'));
  dirs.push(dir);
  return dir;
}

/** The argv of a stand-in engine: `node -e <idle> -- <args>`. */
const engineArgv = (args: string[]) => ['-e', 'setInterval(() => {}, 1000)', '--', ...args];

async function engine(args: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, engineArgv(args), { detached: true, stdio: 'ignore' });
  children.push(child);
  await new Promise((done) => child.once('spawn', done));
  return child;
}

async function save(root: string, name: string, pid: number, command: string[]): Promise<void> {
  await writeSlotState(root, { name, state: 'ready', pid, port: 8101, model_id: 'm', base_url: 'http://127.0.0.1:8101', command, started_at: null, updated_at: new Date().toISOString(), message: null });
}

describe('stopLeftoverEngines', () => {
  it('stops each engine its state.json names and marks the slot stopped', async () => {
    const root = stateRoot();
    const a = await engine(['--port', '1']);
    const b = await engine(['--port', '2']);
    await save(root, 'a', a.pid!, ['node', ...engineArgv(['--port', '1'])]);
    await save(root, 'b', b.pid!, ['node', ...engineArgv(['--port', '2'])]);
    const outcome = await stopLeftoverEngines(root, 2_000);
    expect(outcome.heldBy).toBeUndefined();
    expect(outcome.engines.sort((x, y) => x.slot.localeCompare(y.slot))).toEqual([
      { slot: 'a', pid: a.pid, escalated: false, stopped: true },
      { slot: 'b', pid: b.pid, escalated: false, stopped: true },
    ]);
    expect([isAlive(a.pid!), isAlive(b.pid!)]).toEqual([false, false]);
    expect(readSlotState(root, 'a')).toMatchObject({ state: 'stopped', pid: null });
  });

  it('leaves alone a pid that is now another program, and a slot whose engine is gone', async () => {
    const root = stateRoot();
    const stranger = await engine(['--port', '3']);
    await save(root, 'reused', stranger.pid!, ['node', 'llama-server', '--port', '3']);
    const dead = await engine([]);
    dead.kill('SIGKILL');
    await waitForExit(dead.pid!, 5_000);
    await save(root, 'gone', dead.pid!, ['node', ...engineArgv([])]);
    expect((await stopLeftoverEngines(root, 2_000)).engines).toEqual([]);
    expect(isAlive(stranger.pid!)).toBe(true);
    expect(readSlotState(root, 'reused')).toMatchObject({ state: 'ready', pid: stranger.pid });
  });

  it('touches nothing while a live gateway holds the home', async () => {
    const root = stateRoot();
    const script = join(root, 'svc.js');
    writeFileSync(script, 'setInterval(() => {}, 1000);\n');
    const gateway = spawn(process.execPath, [script, 'serve'], { stdio: 'ignore' });
    children.push(gateway);
    await new Promise((done) => gateway.once('spawn', done));
    mkdirSync(root, { recursive: true });
    writeFileSync(lockFileOf(root), JSON.stringify({ pid: gateway.pid, home: root, started_at: '', url: null, proc_start: null }));
    const running = await engine(['--port', '4']);
    await save(root, 'served', running.pid!, ['node', ...engineArgv(['--port', '4'])]);
    const outcome = await stopLeftoverEngines(root, 2_000);
    expect(outcome).toEqual({ heldBy: expect.objectContaining({ pid: gateway.pid }), engines: [] });
    expect(isAlive(running.pid!)).toBe(true);
  });
});
