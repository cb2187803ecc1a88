// The programs the hardware probe looks for on PATH (the GPU tools, the container runtimes)
// and the one it may run, nvidia-smi, bounded by a timeout since a wedged driver can hang
// it. Looking runs nothing, and asynchronously: POST /api/hardware/probe walks PATH while the
// gateway serves requests.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';

/** The first executable `tool` on PATH, like `command -v`; runs nothing. */
export async function whichOnPath(tool: string, pathEnv: string | undefined = process.env.PATH): Promise<string | null> {
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, tool);
    // One directory at a time, in PATH order: the first match wins, as in a shell.
    if (await access(candidate, constants.X_OK).then(() => true, () => false)) return candidate;
  }
  return null;
}

/** The probe's way to run a tool: its stdout, or null when it fails or outlives `timeoutMs` (then it is killed). */
export function runWithTimeout(path: string, args: string[], timeoutMs: number): Promise<string | null> {
  return new Promise((done) => {
    execFile(path, args, { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024, encoding: 'utf8' }, (error, stdout) => done(error ? null : stdout));
  });
}
