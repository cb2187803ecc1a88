// The home's lock on a real temp directory, with real processes as holders: a process
// whose command line is `node …/svc.js serve` stands in for a running gateway.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireInstanceLock, homeInUseMessage, liveHolder, lockFileOf, type InstanceLock, type InstanceLockInfo } from './instance-lock.js';
import { hostFacts, resolvePaths, type SvcPaths } from './paths.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function home(): SvcPaths {
  const dir = mkdtempSync(join(tmpdir(), 'svc-lock-'));
  dirs.push(dir);
  return resolvePaths(hostFacts({ SVC_HOME: dir }));
}

const readLock = (paths: SvcPaths) => JSON.parse(readFileSync(lockFileOf(paths.stateRoot), 'utf8')) as InstanceLockInfo;

function acquired(paths: SvcPaths): InstanceLock {
  const outcome = acquireInstanceLock(paths);
  if (!('acquired' in outcome)) throw new Error(`expected to take the lock; held by ${JSON.stringify(outcome.heldBy)}`);
  return outcome.acquired;
}

/** A live process that looks like a gateway: `node <dir>/svc.js serve`. */
async function fakeGateway(dir: string): Promise<ChildProcess> {
  const script = join(dir, 'svc.js');
  writeFileSync(script, 'setInterval(() => {}, 1000);\n');
  const child = spawn(process.execPath, [script, 'serve'], { stdio: 'ignore' });
  children.push(child);
  await new Promise((done) => child.once('spawn', done));
  return child;
}

function plant(paths: SvcPaths, lock: Partial<InstanceLockInfo>): void {
  mkdirSync(paths.stateRoot, { recursive: true });
  writeFileSync(lockFileOf(paths.stateRoot), JSON.stringify({ home: 'x', started_at: new Date(0).toISOString(), url: null, proc_start: null, ...lock }));
}

describe('acquireInstanceLock', () => {
  it('takes a free home: the file names this process and the home, the URL once listening, and is removed on release', async () => {
    const paths = home();
    const lock = acquired(paths);
    expect(readLock(paths)).toMatchObject({ pid: process.pid, home: dirs[0], config_root: paths.configRoot, state_root: paths.stateRoot, url: null });
    await lock.listening('http://127.0.0.1:9');
    expect(readLock(paths).url).toBe('http://127.0.0.1:9');
    lock.release();
    expect(existsSync(lockFileOf(paths.stateRoot))).toBe(false);
    // No temp file or takeover marker left behind.
    expect(readdirSync(paths.stateRoot)).toEqual([]);
  });

  it('is refused while a live gateway holds the home, naming it; nothing is changed', async () => {
    const paths = home();
    const holder = await fakeGateway(dirs[0]!);
    plant(paths, { pid: holder.pid!, url: 'http://127.0.0.1:8080' });
    const before = readFileSync(lockFileOf(paths.stateRoot), 'utf8');
    const outcome = acquireInstanceLock(paths);
    expect(outcome).toEqual({ heldBy: expect.objectContaining({ pid: holder.pid, url: 'http://127.0.0.1:8080' }) });
    expect(readFileSync(lockFileOf(paths.stateRoot), 'utf8')).toBe(before);
    expect(liveHolder(paths.stateRoot)?.pid).toBe(holder.pid);
  });

  it('takes over a lock whose pid is dead, or alive but another program, or reused by a newer process', async () => {
    const paths = home();
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((done) => dead.once('exit', done));
    const stranger = spawn('sleep', ['30']);
    children.push(stranger);
    const reused = await fakeGateway(dirs[0]!);
    for (const stale of [{ pid: dead.pid! }, { pid: stranger.pid! }, { pid: reused.pid!, proc_start: '1' }, { pid: process.pid }]) {
      plant(paths, stale);
      expect(liveHolder(paths.stateRoot)).toBeUndefined();
      const lock = acquired(paths);
      expect(readLock(paths).pid).toBe(process.pid);
      lock.release();
    }
  });

  it('release leaves a lock that is no longer ours alone', () => {
    const paths = home();
    const lock = acquired(paths);
    plant(paths, { pid: 4242 });
    lock.release();
    expect(readLock(paths).pid).toBe(4242);
  });
});

describe('homeInUseMessage', () => {
  const holder: InstanceLockInfo = { pid: 1234, home: '/h', config_root: '/h/etc/svc', state_root: '/h/var/lib/svc', started_at: '', url: null, proc_start: null };

  it('names the pid, the home and the URL, or says it is still starting', () => {
    expect(homeInUseMessage({ ...holder, url: 'http://127.0.0.1:8080' }, '/h')).toBe(
      'another svc (pid 1234) already serves this home (/h) at http://127.0.0.1:8080; stop it first, or set SVC_HOME to use another home');
    expect(homeInUseMessage(holder, '/h')).toBe('another svc (pid 1234) already serves this home (/h), still starting; stop it first, or set SVC_HOME to use another home');
  });
});
