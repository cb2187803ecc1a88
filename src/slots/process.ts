// Engine processes: spawned detached in their own process group (so a stop reaches every
// child they fork, and a gateway crash does not take them down), stopped with SIGTERM, a
// grace period, then SIGKILL to the whole group. Every wait is bounded.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export interface SpawnedEngine {
  child: ChildProcess;
  pid: number;
}

export function spawnEngine(command: string, args: string[], env: Record<string, string>, logFd: number, cwd?: string): SpawnedEngine {
  const child = spawn(command, args, { env, cwd, detached: true, stdio: ['ignore', logFd, logFd] });
  closeSync(logFd); // the child holds its own copy
  if (child.pid === undefined) {
    // spawn reports ENOENT/EACCES asynchronously through 'error'; the caller listens for it.
    return { child, pid: -1 };
  }
  return { child, pid: child.pid };
}

export function isAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return !isZombie(pid);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isZombie(pid: number): boolean {
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** Signal a whole process group (the engine and anything it forked). */
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
    if (!isAlive(pid)) return true;
    await Promise.race([sleep(50), exited ?? new Promise(() => undefined)]);
  }
  return !isAlive(pid);
}

/** SIGTERM, wait `graceMs`, SIGKILL the group, wait again; true when it is gone. */
export async function stopProcessGroup(pid: number, graceMs: number, exited?: Promise<unknown>): Promise<{ stopped: boolean; escalated: boolean }> {
  signalGroup(pid, 'SIGTERM');
  if (await waitForExit(pid, graceMs, exited)) return { stopped: true, escalated: false };
  signalGroup(pid, 'SIGKILL');
  return { stopped: await waitForExit(pid, 5_000, exited), escalated: true };
}

/** Resident memory of a process in MiB, from /proc; undefined when unknown. */
export function residentMemoryMb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** Is a TCP port on 127.0.0.1 free to listen on? */
export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => done(true)));
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The command line of a process, for checking an adopted pid is still our engine. */
export function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

/** Is a process's command line (from /proc) the one saved for an engine in its state.json? */
export function sameCommand(actual: string[] | undefined, saved: string[] | null): boolean {
  if (!actual || !saved) return false;
  // Compare the arguments: the executable path may differ in form (symlinks, relative).
  return actual.slice(1).join('\0') === saved.slice(1).join('\0');
}
