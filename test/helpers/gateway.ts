// Start and stop the real gateway (the built dist/bin/svc.js) in a temp SVC_HOME, the way
// a user runs it. `npm test` builds first; running vitest alone needs `npm run build`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SVC_BIN = join(REPO_ROOT, 'dist/bin/svc.js');

if (!existsSync(SVC_BIN)) throw new Error(`${SVC_BIN} is missing: run \`npm run build\` (npm test does it)`);

export interface TempHome {
  home: string;
  configRoot: string;
  stateRoot: string;
  /** Write a file under the config root (e.g. "svc.toml", "slots/chat.toml"). */
  write(rel: string, text: string): string;
}

export function tempHome(files: Record<string, string> = {}): TempHome {
  const home = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const configRoot = join(home, 'etc/svc');
  const stateRoot = join(home, 'var/lib/svc');
  const write = (rel: string, text: string) => {
    const target = join(configRoot, rel);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    return target;
  };
  for (const [rel, text] of Object.entries(files)) write(rel, text);
  return { home, configRoot, stateRoot, write };
}

/** Environment for a child svc process: the temp home and nothing from the developer's SVC_*. */
export function svcEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_')));
  return { ...env, SVC_HOME: home, ...extra };
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Run `svc <args>` to completion. */
export function runSvc(args: string[], options: { home: string; env?: Record<string, string>; input?: string }): RunResult {
  const result = spawnSync(process.execPath, [SVC_BIN, ...args], {
    env: svcEnv(options.home, options.env),
    encoding: 'utf8',
    input: options.input ?? '',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * `svc <args>` without blocking this process: needed when the test itself serves something
 * the command talks to (a fixture endpoint in the test process).
 */
export function runSvcAsync(args: string[], options: { home: string; env?: Record<string, string> }): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], { env: svcEnv(options.home, options.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

export interface Gateway {
  url: string;
  port: number;
  process: ChildProcess;
  output: () => string;
  /** SIGTERM and wait; resolves with the exit code. */
  stop(): Promise<number | null>;
  kill(): Promise<void>;
}

/** Start `svc serve --port 0` and wait until it prints its address. */
export async function startGateway(home: string, options: { env?: Record<string, string>; args?: string[] } = {}): Promise<Gateway> {
  const child = spawn(process.execPath, [SVC_BIN, 'serve', '--port', '0', ...(options.args ?? [])], {
    env: svcEnv(home, options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));

  const port = await new Promise<number>((done, fail) => {
    const check = () => {
      const match = /listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (match) done(Number(match[1]));
    };
    child.stdout.on('data', check);
    void exited.then((code) => fail(new Error(`svc serve exited with ${code} before listening:\n${output}`)));
    setTimeout(() => fail(new Error(`svc serve did not start within 20 s:\n${output}`)), 20_000).unref();
  });

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** fetch + JSON, returning status, headers and body. */
export async function api(base: string, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  // A POST with no body says JSON anyway, as most API clients do (a bare one, as curl -X POST
  // sends, is served too: tool-posts.test.ts).
  if (init.method === 'POST' && body === undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(`${base}${path}`, { method: init.method ?? 'GET', headers, ...(body !== undefined && { body }) });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  // Tests read arbitrary response shapes; `any` keeps their assertions short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, headers: response.headers, text, json: json as any };
}

/**
 * Per-test homes and gateways, removed and stopped after each test:
 *   const { home, gateway } = useTempGateways(afterEach);
 */
export function useTempGateways(afterEach: (fn: () => Promise<void>) => void) {
  const homes: TempHome[] = [];
  const gateways: Gateway[] = [];
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((g) => g.stop()));
    for (const h of homes.splice(0)) rmSync(h.home, { recursive: true, force: true });
  });
  return {
    home(files: Record<string, string> = {}): TempHome {
      const h = tempHome(files);
      homes.push(h);
      return h;
    },
    async gateway(h: TempHome, options?: Parameters<typeof startGateway>[1]): Promise<Gateway> {
      const g = await startGateway(h.home, options);
      gateways.push(g);
      return g;
    },
  };
}
