// Processes and ports, from /proc and signals: is a pid alive (and not a zombie), what is its
// command line, stop a whole process group with SIGTERM, a grace period, then SIGKILL, is a
// port free. Every wait is bounded. Used by the slot supervisor for engines (each spawned
// detached in its own process group, slots/engine-spawn.ts), by the update worker for the
// gateway it restarts, by stacks for ports, and by uninstall for what a dead gateway left.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';

/** Synchronous: for what runs without a gateway (the update worker, uninstall, stopping engines a dead gateway left) and for tests. */
export function isAlive(pid: number): boolean {
  const signalled = signalZero(pid);
  return signalled === 'exists' ? !isZombieStatus(readProcSync(pid, 'status')) : signalled;
}

/** isAlive without blocking the event loop (the supervisor's tick, stops while requests flow). */
export async function isRunning(pid: number): Promise<boolean> {
  const signalled = signalZero(pid);
  return signalled === 'exists' ? !isZombieStatus(await readProc(pid, 'status')) : signalled;
}

function signalZero(pid: number): 'exists' | boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return 'exists';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const isZombieStatus = (status: string | undefined) => status !== undefined && /^State:\s+Z/m.test(status);

function readProcSync(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

const readProc = (pid: number, file: string): Promise<string | undefined> => readFile(`/proc/${pid}/${file}`, 'utf8').catch(() => undefined);

/** Signal a whole process group (the process and anything it forked). */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

export async function waitForExit(pid: number, timeoutMs: number, exited?: Promise<unknown>): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!(await isRunning(pid))) return true;
    await Promise.race([sleep(50), exited ?? new Promise(() => undefined)]);
  }
  return !(await isRunning(pid));
}

/** SIGTERM, wait `graceMs`, SIGKILL the group, wait again; true when it is gone. */
export async function stopProcessGroup(pid: number, graceMs: number, exited?: Promise<unknown>): Promise<{ stopped: boolean; escalated: boolean }> {
  signalGroup(pid, 'SIGTERM');
  if (await waitForExit(pid, graceMs, exited)) return { stopped: true, escalated: false };
  signalGroup(pid, 'SIGKILL');
  return { stopped: await waitForExit(pid, 5_000, exited), escalated: true };
}

/** Resident memory of a process in MiB, from /proc; undefined when unknown. */
export async function residentMemoryMb(pid: number): Promise<number | undefined> {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec((await readProc(pid, 'status')) ?? '');
  return match ? Math.round(Number(match[1]) / 1024) : undefined;
}

/** Is a TCP port on 127.0.0.1 free to listen on? */
export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => done(true)));
  });
}

/**
 * Free now, or within `graceMs`: an engine stopped a moment ago can leave a child of its
 * process group (a helper it spawned) holding the inherited listening socket until the
 * SIGTERM reaches it, so a quick unload-then-load would otherwise be refused.
 */
export async function portFreeWithin(port: number, graceMs: number, host = '127.0.0.1'): Promise<boolean> {
  const until = Date.now() + graceMs;
  for (;;) {
    if (await portIsFree(port, host)) return true;
    if (Date.now() >= until) return false;
    await sleep(50);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The command line of a process, for checking a pid read from a file is still the process it names. */
export async function commandLine(pid: number): Promise<string[] | undefined> {
  return (await readProc(pid, 'cmdline'))?.split('\0').filter(Boolean);
}

/**
 * Is the process running `saved`'s engine? Its arguments end the process's argv: the
 * executable may differ in form (symlinks, relative), and a wrapper script that execs an
 * interpreter (`exec node engine.mjs "$@"`) puts the interpreter and the script first.
 */
export function sameCommand(actual: string[] | undefined, saved: string[] | null): boolean {
  if (!actual || !saved || actual.length < saved.length) return false;
  const args = saved.slice(1);
  return actual.slice(actual.length - args.length).join('\0') === args.join('\0');
}
