// The processes a test run started, found after it by the run's own temp directory: the
// global setup (test/global-setup.ts) points TMPDIR at a directory of this run's own, so every
// temp home a test makes lies under it, every process the tests start inherits it (engines
// too: TMPDIR is in the engine environment's allowlist), and their command lines name homes
// under it. That finds an orphan reparented to init as surely as a live descendant, and never
// a process of another run on the same machine (their TMPDIR is another directory).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface RunProcess {
  pid: number;
  ppid: number;
  command: string;
}

/** What /proc says of one pid, or null when it is gone, a zombie, or unreadable. */
function inspect(pid: number): { ppid: number; argv: string[]; env: string[]; cwd: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === 'Z' || state === 'X') return null;
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    let cwd = '';
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      // a kernel thread or a process mid-exit
    }
    return { ppid: Number(ppid), argv, env, cwd };
  } catch {
    return null;
  }
}

/**
 * Live processes that belong to the run whose temp directory is `runDir`: their TMPDIR is it,
 * or their command line or working directory lies under it. `runner` (the vitest process)
 * and its direct children (its workers) are the run's machinery, never counted.
 */
export function runProcesses(runDir: string, runner: number): RunProcess[] {
  const found: RunProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === runner) continue;
    const seen = inspect(pid);
    if (!seen || seen.ppid === runner) continue;
    const ours = seen.env.includes(`TMPDIR=${runDir}`) || seen.argv.some((arg) => arg.includes(runDir)) || seen.cwd.startsWith(runDir);
    if (ours) found.push({ pid, ppid: seen.ppid, command: seen.argv.join(' ') });
  }
  return found;
}
