// Vitest's global setup: the run gets a temp directory of its own (TMPDIR, inherited by the
// workers, so every temp home a test makes lies under it), and the teardown fails the run
// when any process a test started outlives it (test/helpers/run-processes.ts finds them):
// it prints each, kills it, and throws. A gateway killed with SIGKILL leaves its engines
// running on purpose (the next `svc serve` re-adopts them: docs/cli.md), so a test that does
// that stops the engines itself; a leftover here is a test that forgot.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcesses, type RunProcess } from './helpers/run-processes.js';

/** How long a process that is already stopping (a gateway's last engine going) gets to go. */
const GRACE_MS = 10_000;

export default function setup(): () => Promise<void> {
  const runDir = mkdtempSync(join(tmpdir(), 'svcrun-'));
  process.env.TMPDIR = runDir;
  return async function teardown() {
    let left: RunProcess[] = runProcesses(runDir, process.pid);
    const deadline = Date.now() + GRACE_MS;
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      left = runProcesses(runDir, process.pid);
    }
    for (const { pid } of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    rmSync(runDir, { recursive: true, force: true });
    if (left.length > 0) {
      // Vitest reports a teardown's error but still exits 0: the exit code says it too.
      process.exitCode = 1;
      const lines = left.map((p) => `  pid ${p.pid} (parent ${p.ppid}): ${p.command}`).join('\n');
      throw new Error(`${left.length} process(es) started by the tests outlived the run (killed now):\n${lines}`);
    }
  };
}
