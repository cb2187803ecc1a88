// One gateway per home: `svc serve` holds <stateRoot>/svc.lock while it runs. Two gateways
// on one home would adopt, restart and stop each other's engines (state.json is per home),
// so the second one refuses to start instead (DESIGN.md: "the lock is taken in bin/ before
// the server or any slot is touched").
//
// The file is created complete or not at all: written to a temp file, then hard-linked to
// its name, which fails when the name exists (O_EXCL semantics with the content already in
// place, so a reader never sees a half-written lock). A lock whose process is gone, or is
// no longer the svc that wrote it (the pid reused), is stale and taken over; only one of
// several starters racing for the same stale lock removes it (see removeStale).
//
// A task that rewrites what a gateway owns without one running (stopping the engines a dead
// gateway left, setup/leftover-engines.ts) takes the same lock, naming itself in `task`, so
// that no gateway starts and adopts an engine while the task stops it and rewrites its
// state.json.
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempSiblingOf, writeFileAtomic } from './atomic.js';
import type { SvcPaths } from './paths.js';

export interface InstanceLockInfo {
  pid: number;
  /** The home a user names: SVC_HOME, or the state root for the system and per-user homes. */
  home: string;
  config_root: string;
  state_root: string;
  started_at: string;
  /** Where it serves; null until it listens. */
  url: string | null;
  /** Field 22 of /proc/<pid>/stat: with the pid, identifies the process across pid reuse. */
  proc_start: string | null;
  /** Set when the holder is a task, not a gateway: what it does ("stopping the engines a dead gateway left"). */
  task?: string;
}

export type LockOutcome = { acquired: InstanceLock } | { heldBy: InstanceLockInfo };

export const lockFileOf = (stateRoot: string) => join(stateRoot, 'svc.lock');

export function homeOf(paths: SvcPaths): string {
  return paths.source === 'SVC_HOME' ? resolve(paths.configRoot, '../..') : paths.stateRoot;
}

/** Take the home's lock, or say who holds it. Throws when the state root cannot be written. */
export function acquireInstanceLock(paths: SvcPaths): LockOutcome {
  return takeLock(paths.stateRoot, { home: homeOf(paths), config_root: paths.configRoot });
}

/** Take the home's lock for a task that runs without a gateway (`task` says what it does), or say who holds it. */
export function acquireTaskLock(stateRoot: string, task: string): LockOutcome {
  return takeLock(stateRoot, { home: stateRoot, config_root: '', task });
}

function takeLock(stateRoot: string, who: Pick<InstanceLockInfo, 'home' | 'config_root' | 'task'>): LockOutcome {
  mkdirSync(stateRoot, { recursive: true });
  const file = lockFileOf(stateRoot);
  const info: InstanceLockInfo = {
    pid: process.pid, ...who, state_root: stateRoot, started_at: new Date().toISOString(), url: null, proc_start: procStart(process.pid) ?? null,
  };
  // Each round either wins, finds a live holder, or removes a stale lock (or waits out another
  // starter removing it); a handful of rounds settles any race between a few starters.
  for (let round = 0; round < 100; round++) {
    if (createExclusive(file, serialize(info))) return { acquired: new InstanceLock(file, info) };
    const raw = readText(file);
    if (raw === undefined) continue;
    const holder = parseLock(raw);
    if (holder && holdsLock(holder)) return { heldBy: holder };
    removeStale(file, raw);
  }
  throw new Error(`could not take ${file}: other processes keep replacing it`);
}

/** The live gateway holding the home's lock, if any (a stale lock names none). */
export function liveHolder(stateRoot: string): InstanceLockInfo | undefined {
  const raw = readText(lockFileOf(stateRoot));
  const holder = raw === undefined ? undefined : parseLock(raw);
  return holder && holdsLock(holder) ? holder : undefined;
}

/** The one line a second `svc serve` prints (without the "svc: " prefix). */
export function homeInUseMessage(holder: InstanceLockInfo, home: string): string {
  if (holder.task) return `svc (pid ${holder.pid}) is ${holder.task} in this home (${home}); start again once it is done`;
  const where = holder.url ? ` at ${holder.url}` : ', still starting';
  return `another svc (pid ${holder.pid}) already serves this home (${home})${where}; stop it first, or set SVC_HOME to use another home`;
}

export class InstanceLock {
  private released = false;

  constructor(readonly file: string, private info: InstanceLockInfo) {}

  /** Record the URL once listening; atomic, so a reader sees the old lock or the new one. */
  async listening(url: string): Promise<void> {
    if (this.released || !this.stillOurs()) return;
    this.info = { ...this.info, url };
    await writeFileAtomic(this.file, serialize(this.info));
  }

  /** Remove the lock if it is still ours. Synchronous: it runs in process.on('exit'). */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (this.stillOurs()) unlinkQuietly(this.file);
  }

  private stillOurs(): boolean {
    const current = parseLock(readText(this.file) ?? '');
    return current?.pid === this.info.pid && current.started_at === this.info.started_at;
  }
}

const serialize = (info: InstanceLockInfo) => `${JSON.stringify(info, null, 2)}\n`;

/** Create `file` with `text` unless it exists; never leaves a partial file under that name. */
function createExclusive(file: string, text: string): boolean {
  const temp = tempSiblingOf(file);
  writeFileSync(temp, text, { flag: 'wx', mode: 0o644 });
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOENT: a starting gateway swept our temp file as a leftover; the next round retries.
    if (code === 'EEXIST' || code === 'ENOENT') return false;
    throw error;
  } finally {
    unlinkQuietly(temp);
  }
}

/**
 * Remove a stale lock, as long as it is still the one judged stale. Check-then-unlink is
 * only safe for one process at a time, so it happens under a takeover marker: two starters
 * that both found the same stale lock cannot both remove a lock (the second would remove the
 * first one's fresh lock). A marker left by a starter that died in those few microseconds
 * is removed when its pid is gone.
 */
function removeStale(file: string, staleText: string): void {
  const marker = `${file}.takeover`;
  if (!createExclusive(marker, String(process.pid))) {
    const owner = Number(readText(marker));
    if (!isAlive(owner)) unlinkQuietly(marker);
    else pause(10);
    return;
  }
  try {
    if (readText(file) === staleText) unlinkQuietly(file);
  } finally {
    unlinkQuietly(marker);
  }
}

function parseLock(raw: string): InstanceLockInfo | undefined {
  try {
    const parsed = JSON.parse(raw) as InstanceLockInfo;
    return Number.isInteger(parsed.pid) && parsed.pid > 0 ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Is the lock's process alive and still the svc gateway that wrote it? */
function holdsLock(holder: InstanceLockInfo): boolean {
  // Our own pid in a lock we did not take: a predecessor's, with the pid reused (pid 1 in a container).
  if (holder.pid === process.pid || !isAlive(holder.pid)) return false;
  const argv = commandLine(holder.pid);
  // A task's holder is whatever program runs it (svc uninstall, npm start's launcher): its start time identifies it.
  if (argv && !holder.task && !isSvcServe(argv)) return false;
  const start = procStart(holder.pid);
  return !(holder.proc_start && start && start !== holder.proc_start);
}

/** `node …/svc.js serve …`, `node /usr/bin/svc serve …`: the gateway, however it was started. */
function isSvcServe(argv: string[]): boolean {
  return argv.includes('serve') && argv.some((arg) => /(^|\/)svc(\.js)?$/.test(arg));
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** argv from /proc; undefined where there is no /proc. A zombie's is empty: not svc. */
function commandLine(pid: number): string[] | undefined {
  const raw = readText(`/proc/${pid}/cmdline`);
  return raw === undefined ? undefined : raw.split('\0').filter(Boolean);
}

function procStart(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
