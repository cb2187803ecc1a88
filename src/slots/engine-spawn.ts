// Engine processes are spawned detached in their own process group, so a stop reaches every
// child they fork (lib/process.ts stops the group) and a gateway crash does not take them
// down: a restarted gateway re-adopts them (adoption.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { close } from 'node:fs';

export interface SpawnedEngine {
  child: ChildProcess;
  pid: number;
}

export function spawnEngine(command: string, args: string[], env: Record<string, string>, logFd: number, cwd?: string): SpawnedEngine {
  let child: ChildProcess;
  try {
    child = spawn(command, args, { env, cwd, detached: true, stdio: ['ignore', logFd, logFd] });
  } finally {
    close(logFd, () => undefined); // the child holds its own copy
  }
  if (child.pid === undefined) {
    // spawn reports ENOENT/EACCES asynchronously through 'error'; the caller listens for it.
    return { child, pid: -1 };
  }
  return { child, pid: child.pid };
}
