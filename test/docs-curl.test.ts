// Every `curl` in README.md and docs/*.md, run as written with the real curl against a live
// gateway, so the docs cannot drift from the program again (issue 37, item 4). The examples
// are read from the Markdown (test/helpers/doc-curls.ts); the home is the one `npm start`
// makes for a new user (scripts/start.mjs: slots `chat` and `embed` on the built-in engine,
// the tiny model as `svc-tiny`), plus the files docs/api.md says its examples name. One
// gateway serves them all, file after file, each file's examples in their order (docs/api.md's
// build on each other: a model registered, then removed, another assigned).
//
// What a run must show: curl exits 0; the HTTP status is an error (>= 400) with the code of
// the envelope the doc shows beside it, or a success when the doc shows none; a success the
// doc shows as JSON parses and has the top-level keys shown; a stream (`-N`) starts with the
// kind of line the doc shows. The documented addresses (127.0.0.1:8080, localhost:8080, the
// docs' capture port 18123, a leading `…/`) and the docs' capture home (/tmp/svc-doc-models)
// are mapped to this gateway and its home. An example that cannot run here is listed in
// NOT_RUNNABLE with the reason; a listed one that left the docs fails the test, and so does a
// new one naming an address this test cannot map.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docCurls, expected, type DocCurl } from './helpers/doc-curls.js';
import { api, REPO_ROOT, svcEnv, tempHome, type TempHome } from './helpers/gateway.js';
import { freePort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

/** Examples that cannot run in this test, by id (file#hash, then the command's first words). */
const NOT_RUNNABLE: Record<string, string> = {
  'docs/auth.md#2e021593 curl -F file=@a.wav -F model=… …/v1/audio/transcriptions':
    'needs a transcription slot or upstream and a recording; test/tool-posts.test.ts sends the bytes curl -F sends',
  'docs/auth.md#4e3c141b curl --cacert root.crt https://svc.local/v1/models':
    'auth mode behind Caddy with `tls internal` on the hostname svc.local (a name to resolve, the proxy, its root certificate); test/auth-caddy.test.ts runs the real Caddy in front, on the name localhost',
};

const FILES = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const examples: DocCurl[] = FILES.flatMap((file) => docCurls(file, readFileSync(join(REPO_ROOT, file), 'utf8')));
const runnable = examples.filter((e) => !(e.id in NOT_RUNNABLE));

/** The addresses the docs write for the gateway, and the home their answers were captured in. */
const GATEWAY = /https?:\/\/(?:127\.0\.0\.1|localhost):(?:8080|18123)(?=[/'"\s]|$)|\blocalhost:8080(?=\/)|(?<=\s)…(?=\/)/g;
const CAPTURE_HOME = /\/tmp\/svc-doc-models\b/g;
const OTHER_URL = /\bhttps?:\/\/[^\s'"]+|(?<=\s)[\w.-]+:\d+\/\S*/g;

const curlMissing = spawnSync('curl', ['--version']).status !== 0;
if (curlMissing && process.env.CI === 'true') throw new Error('curl is not installed; CI must install it (.ci/run)');
const skip = curlMissing ? 'SKIPPED: curl is not installed (apt-get install curl)' : undefined;

let home: TempHome;
let base: string;
/** Where the commands run: files they name by a relative path (now.svcstack.json) are here. */
let cwd: string;
let stopStart: () => Promise<void>;

/** `node scripts/start.mjs` on a fresh home, as `npm start` runs it, until it says svc is up. */
async function npmStart(env: NodeJS.ProcessEnv): Promise<{ base: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts/start.mjs'), '--port', String(port)], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((done) => child.once('exit', done));
  await waitFor(() => output.includes('svc is up:') || child.exitCode !== null, { what: '`npm start` to say svc is up', timeout: 80_000 });
  if (!output.includes('svc is up:')) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
  return {
    base: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

beforeAll(async () => {
  if (skip) return;
  home = tempHome();
  cwd = join(home.home, 'cwd');
  mkdirSync(cwd);
  // A closed port as the Hugging Face endpoint: the pull example starts a job, which fails here, never on the internet.
  const started = await npmStart(svcEnv(home.home, { PATH: '/usr/bin:/bin', SVC_HF_ENDPOINT: 'http://127.0.0.1:9' }));
  base = started.base;
  stopStart = started.stop;
  // The files docs/api.md says its examples name: a second copy of the tiny model, and the
  // export of a stack of this home's slots.
  mkdirSync(join(home.home, 'elsewhere'));
  copyFileSync(join(home.stateRoot, 'models/svc-tiny.gguf'), join(home.home, 'elsewhere/svc-tiny.gguf'));
  expect((await api(base, '/api/stacks/snapshot', { method: 'POST', body: { slug: 'now' } })).status).toBe(201);
  const exported = await api(base, '/api/stacks/now/export');
  expect(exported.status).toBe(200);
  writeFileSync(join(cwd, 'now.svcstack.json'), exported.text);
}, 120_000);

afterAll(async () => {
  await stopStart?.();
  if (home) rmSync(home.home, { recursive: true, force: true });
});

/** The command with the docs' addresses and capture home replaced by this gateway's. */
const mapped = (command: string) => command.replace(GATEWAY, base).replace(CAPTURE_HOME, home.home);

interface Ran {
  exit: number | null;
  status?: number;
  out: string;
  err: string;
}

/**
 * Run a command in bash (a pipeline runs whole; pipefail makes any part's failure count)
 * with curl reporting the HTTP status on stderr. A stream is read until its first event
 * (a blank line ends it), then curl is stopped.
 */
function run(command: string, stream: boolean): Promise<Ran> {
  const prelude = `set -o pipefail\ncurl() { command curl -w '%{stderr}\\n@@http %{http_code}\\n' "$@"; }\n`;
  const child = spawn('bash', ['-c', prelude + command], { cwd, env: { PATH: '/usr/bin:/bin', SVC_URL: base, SVC_API_URL: base }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const ran: Ran = { exit: null, out: '', err: '' };
  child.stdout.on('data', (chunk: Buffer) => (ran.out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (ran.err += chunk.toString()));
  const stopGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  // Bounds a hung command, so it cannot outlive the test; not a claim about speed.
  const guard = setTimeout(stopGroup, 110_000);
  const exited = new Promise<Ran>((done) => child.once('close', (code) => {
    clearTimeout(guard);
    ran.exit = code;
    const status = [...ran.err.matchAll(/@@http (\d{3})/g)].at(-1)?.[1];
    if (status) ran.status = Number(status);
    done(ran);
  }));
  if (!stream) return exited;
  return waitFor(() => ran.out.includes('\n\n') || child.exitCode !== null, { what: 'the stream\'s first event', timeout: 60_000 }).then(() => {
    stopGroup();
    return exited;
  });
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

describe.skipIf(skip)(`the docs' curl examples, run as written ${skip ?? ''}`, () => {
  it('finds every curl command line of the docs (the extraction misses none)', () => {
    for (const file of FILES) {
      const lines = readFileSync(join(REPO_ROOT, file), 'utf8').split('\n');
      const starts = lines.flatMap((line, i) => (/^\s*(\$\s+)?curl\s/.test(line) ? [i + 1] : []));
      const found = new Set(examples.filter((e) => e.file === file).map((e) => e.line));
      expect(starts.filter((line) => !found.has(line)).map((line) => `${file}:${line}`)).toEqual([]);
    }
  });

  it('lists no example that left the docs (NOT_RUNNABLE is not stale)', () => {
    const ids = new Set(examples.map((e) => e.id));
    expect(Object.keys(NOT_RUNNABLE).filter((id) => !ids.has(id))).toEqual([]);
  });

  for (const example of runnable) {
    it(`${example.file}:${example.line} ${example.command.slice(0, 90)}`, async () => {
      const command = mapped(example.command);
      const elsewhere = (command.match(OTHER_URL) ?? []).filter((url) => !url.startsWith(base));
      expect(elsewhere, `${example.id} names an address this test does not map: map it in GATEWAY, or list the id in NOT_RUNNABLE with the reason`).toEqual([]);
      const want = expected(example);
      const ran = await run(command, want.kind === 'stream');
      const said = `${example.file}:${example.line}\n${command}\nexit ${ran.exit}, HTTP ${ran.status}\n${ran.out.slice(0, 600)}\n${ran.err.slice(0, 300)}`;
      if (want.kind === 'stream') {
        expect(ran.out, said).toMatch(/^(:|data:|id:|event:)/);
        if (want.first) expect(ran.out.startsWith(':') ? 'comment' : 'field', said).toBe(want.first);
        return;
      }
      expect(ran.exit, said).toBe(0);
      const body = parse(ran.out) as Record<string, unknown> | undefined;
      if (want.kind === 'error') {
        expect(ran.status, said).toBeGreaterThanOrEqual(400);
        const error = body?.error as { code?: string; details?: object } | undefined;
        expect(error?.code, said).toBe(want.code);
        expect(Object.keys(error?.details ?? {}), said).toEqual(expect.arrayContaining(want.keys));
        return;
      }
      expect(ran.status, said).toBeLessThan(400);
      if (want.json) {
        expect(body, said).toBeTypeOf('object');
        expect(Object.keys(body!), said).toEqual(expect.arrayContaining(want.keys));
      }
    }, 120_000);
  }
});
