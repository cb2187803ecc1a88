#!/usr/bin/env node
// The fuzzer's long run (issue 36): test/fuzz.test.ts with many more requests than the CI's
// short run, memory on (its embedded database starts on the first memory request), against a
// real gateway in default and in auth mode. It prints the figures and exits non-zero when
// the run found a failure (the test's own lines say which). `npm run bench` runs it too
// (bench/run.mjs, --fuzz-requests N, 0 to leave it out).
//   node bench/fuzz.mjs [--requests N] [--auth-requests N] [--seed S]   (after npm run build)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const FUZZ_REQUESTS = 8_000;

/**
 * Run the fuzz test with `requests` in default mode and `authRequests` in auth mode. Returns
 * the seed, what each mode sent, its answers by status and its kinds of failure, the seconds
 * it took, and whether the test passed (its output's tail when it did not).
 */
export async function measureFuzz({ requests = FUZZ_REQUESTS, authRequests = Math.round(requests / 4), seed = 36 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-fuzz-'));
  const report = join(dir, 'fuzz.json');
  const env = { ...process.env, SVC_FUZZ_REQUESTS: String(requests), SVC_FUZZ_AUTH_REQUESTS: String(authRequests), SVC_FUZZ_SEED: String(seed), SVC_FUZZ_MEMORY: '1', SVC_FUZZ_REPORT: report, NO_COLOR: '1', FORCE_COLOR: '0' };
  const vitest = join(REPO_ROOT, 'node_modules/.bin/vitest');
  let output = '';
  const code = await new Promise((done) => {
    const child = spawn(vitest, ['run', 'test/fuzz.test.ts'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('close', done);
  });
  let figures = {};
  try {
    figures = JSON.parse(readFileSync(report, 'utf8'));
  } catch {
    // The test did not get far enough to write it; its output says why.
  }
  rmSync(dir, { recursive: true, force: true });
  return { ...figures, requests, auth_requests: authRequests, passed: code === 0, ...(code !== 0 && { output_tail: output.slice(-4000) }) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const argv = process.argv.slice(2);
  const opt = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
  const requests = opt('--requests', FUZZ_REQUESTS);
  const result = await measureFuzz({ requests, authRequests: opt('--auth-requests', Math.round(requests / 4)), seed: opt('--seed', 36) });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`, () => process.exit(result.passed ? 0 : 1));
}
