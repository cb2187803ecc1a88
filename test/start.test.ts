// `npm start` on a fresh home, the way a user runs it: scripts/start.mjs writes the tiny
// model, creates a chat and an embedding slot on the built-in engine, serves, and answers
// chat with generated text; no llama-server on PATH. A second start leaves the slots alone.
// Stopping it (SIGTERM, SIGINT, SIGHUP; to npm or to start.mjs) stops the gateway and its
// engines; a gateway killed under it does not leave its engines running.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { api, REPO_ROOT, svcEnv, tempHome } from './helpers/gateway.js';
import { portIsFree } from '../src/lib/process.js';
import { processAlive } from './helpers/llama.js';
import { freePort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

const home = tempHome();
const children: ChildProcess[] = [];
/** Gateways seen under a start: stopped after a failed test (gracefully, so their engines go too). */
const gateways = new Set<number>();

afterAll(async () => {
  for (const pid of gateways) if (processAlive(pid)) process.kill(pid, 'SIGTERM');
  await waitFor(() => [...gateways].every((pid) => !processAlive(pid)), { what: 'the gateways of failed tests to stop', timeout: 15_000 });
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(home.home, { recursive: true, force: true });
});

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface Started {
  child: ChildProcess;
  base: string;
  port: number;
  /** The `svc serve` process under it. */
  gateway: number;
  output: () => string;
  exited: Promise<Exit>;
}

/**
 * `node scripts/start.mjs --port <free>` with SVC_HOME at the temp home and no llama-server on
 * PATH; with `viaNpm`, the real `npm start` (--ignore-scripts skips the prestart build: the
 * suite runs on a built tree, and rebuilding dist/ under the other test files is unsafe).
 */
async function npmStart(options: { viaNpm?: boolean; ownGroup?: boolean } = {}): Promise<Started> {
  const port = await freePort();
  // ownGroup: a process group of its own, like a terminal's foreground job, for signals to the whole group.
  const spawnOptions: SpawnOptions = { cwd: REPO_ROOT, env: svcEnv(home.home, { PATH: '/usr/bin:/bin' }), stdio: ['ignore', 'pipe', 'pipe'], detached: options.ownGroup ?? false };
  const child = options.viaNpm
    ? spawn('npm', ['start', '--ignore-scripts', '--', '--port', String(port)], spawnOptions)
    : spawn(process.execPath, [join(REPO_ROOT, 'scripts/start.mjs'), '--port', String(port)], spawnOptions);
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<Exit>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  let exit: Exit | undefined;
  void exited.then((end) => (exit = end));
  await waitFor(() => output.includes('svc is up:') || exit !== undefined, { what: '`npm start` to say svc is up', timeout: 80_000 });
  if (!output.includes('svc is up:')) throw new Error(`start exited with ${exit!.code ?? exit!.signal}:\n${output}`);
  return { child, base: `http://127.0.0.1:${port}`, port, gateway: gatewayUnder(child.pid!), output: () => output, exited };
}

async function stop(started: Started, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  started.child.kill(signal);
  const { code, signal: killedBy } = await started.exited;
  return code ?? (killedBy ? -1 : null);
}

/** Every process below `pid`, from /proc (children of all its threads), depth first. */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      children.push(...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
    }
  } catch {
    children = [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** The `svc serve` process under a start (npm or start.mjs). */
function gatewayUnder(start: number): number {
  const pid = descendants(start).find((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').includes('serve'));
  if (!pid) throw new Error(`no svc serve process under ${start}`);
  gateways.add(pid);
  return pid;
}

/** Make the chat slot's engine run; its pid. */
async function chatEnginePid(started: Started): Promise<number> {
  const answer = await api(started.base, '/v1/chat/completions', { method: 'POST', body: { model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 } });
  expect(answer.status).toBe(200);
  const pid = (await api(started.base, '/api/slots/chat')).json.pid as number;
  expect(processAlive(pid)).toBe(true);
  return pid;
}

/** After a stop: the gateway and the engine are gone, and the port is free again. */
async function expectAllGone(started: Started, pids: number[]): Promise<void> {
  for (const pid of pids) await waitFor(() => !processAlive(pid), { what: `process ${pid} to exit` });
  await waitFor(() => portIsFree(started.port), { what: `port ${started.port} to be free` });
}

describe('npm start on a fresh home', () => {
  let slotFiles: Record<string, string>;

  it('writes the tiny model, creates builtin chat and embedding slots, and chats with generated text', async () => {
    const started = await npmStart();
    const output = started.output();
    expect(output).toMatch(/wrote the tiny demo model .*svc-tiny\.gguf/);
    expect(output).toMatch(/created slot chat: llm on the built-in engine, model svc-tiny/);
    expect(output).toMatch(/created slot embed: embedding on the built-in engine, model svc-tiny/);
    expect(output).toContain(`OpenAI base URL: ${started.base}/v1`);
    expect(output).toContain('svc.js model register');
    expect(output).toContain('slot create');

    const client = new OpenAI({ baseURL: `${started.base}/v1`, apiKey: 'none' });
    const answer = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 32 });
    expect(answer.choices[0]!.message.content).toMatch(/[a-z]{2,}/);
    expect(answer.usage!.completion_tokens).toBeGreaterThan(0);
    const embedding = await client.embeddings.create({ model: 'embed', input: 'Hello!' });
    expect(embedding.data[0]!.embedding).toHaveLength(64);

    const slots = (await api(started.base, '/api/slots')).json.slots as { name: string; provider: string; type: string; pid: number | null }[];
    expect(slots.map((s) => [s.name, s.provider, s.type])).toEqual([['chat', 'builtin', 'llm'], ['embed', 'builtin', 'embedding']]);
    const pids = slots.map((s) => s.pid!);
    expect(readdirSync(join(home.stateRoot, 'models'))).toEqual(['svc-tiny.gguf']);
    expect(readFileSync(join(home.configRoot, 'svc.toml'), 'utf8')).toMatch(/^\[memory\]\nengine = "pgvector"$/m);
    slotFiles = Object.fromEntries(['chat', 'embed'].map((n) => [n, readFileSync(join(home.configRoot, 'slots', `${n}.toml`), 'utf8')]));
    // svc's code cache goes into the home too: a fresh clone writes nothing outside itself.
    const codeCache = join(home.home, 'cache/code-cache');
    await waitFor(() => existsSync(codeCache) && readdirSync(codeCache).some((f) => f.endsWith('.bin')), { what: `a code cache in ${codeCache}` });

    expect(await stop(started)).toBe(0);
    for (const pid of pids) expect(processAlive(pid)).toBe(false);
    await expectAllGone(started, [started.gateway]);
  }, 90_000);

  it('a second start keeps the model and the slots as they are, and serves them', async () => {
    home.write('slots/chat.toml', `${slotFiles.chat!}# edited by hand\n`);
    const started = await npmStart();
    expect(started.output()).not.toContain('wrote the tiny demo model');
    expect(started.output()).not.toContain('created slot');
    expect(readFileSync(join(home.configRoot, 'slots/chat.toml'), 'utf8')).toBe(`${slotFiles.chat!}# edited by hand\n`);
    expect(readFileSync(join(home.configRoot, 'slots/embed.toml'), 'utf8')).toBe(slotFiles.embed);
    const answer = await api(started.base, '/v1/chat/completions', { method: 'POST', body: { model: 'chat', messages: [{ role: 'user', content: 'again' }], max_tokens: 8 } });
    expect(answer.status).toBe(200);
    expect(answer.json.choices[0].message.content).toMatch(/\S/);
    expect(await stop(started, 'SIGINT')).toBe(0);
    await expectAllGone(started, [started.gateway]);
  }, 90_000);

  it('SIGHUP (a closed terminal) stops the gateway and its engine: start.mjs exits 0', async () => {
    const started = await npmStart();
    const pids = [started.gateway, await chatEnginePid(started)];
    expect(await stop(started, 'SIGHUP')).toBe(0);
    await expectAllGone(started, pids);
  }, 90_000);

  it('SIGTERM to `npm start` reaches the gateway: npm exits 0, the gateway and its engine are gone', async () => {
    const started = await npmStart({ viaNpm: true });
    const pids = [started.gateway, await chatEnginePid(started)];
    expect(await stop(started)).toBe(0);
    await expectAllGone(started, pids);
  }, 90_000);

  it('Ctrl-C in a terminal (SIGINT to the whole job, arriving at the gateway more than once) stops everything', async () => {
    const started = await npmStart({ viaNpm: true, ownGroup: true });
    const pids = [started.gateway, await chatEnginePid(started)];
    process.kill(-started.child.pid!, 'SIGINT');
    expect((await started.exited).code).toBe(0);
    await expectAllGone(started, pids);
    expect(started.output().match(/SIGINT received, shutting down/g)).toHaveLength(1);
  }, 90_000);

  it('a second start on a home the first one serves exits 7 and leaves the first one and its engine alone', async () => {
    const first = await npmStart();
    const engine = await chatEnginePid(first);
    const second = spawn(process.execPath, [join(REPO_ROOT, 'scripts/start.mjs'), '--port', String(await freePort())], { cwd: REPO_ROOT, env: svcEnv(home.home), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(second);
    let output = '';
    second.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    expect(await new Promise((done) => second.once('exit', done))).toBe(7);
    expect(output).toContain(`another svc (pid ${first.gateway}) already serves this home (${home.home}) at ${first.base}`);
    expect([processAlive(first.gateway), processAlive(engine)]).toEqual([true, true]);
    expect((await api(first.base, '/api/slots/chat')).json).toMatchObject({ state: 'ready', pid: engine });
    expect(await stop(first)).toBe(0);
    await expectAllGone(first, [first.gateway, engine]);
  }, 90_000);

  it('a gateway killed under start.mjs: start.mjs stops the engine it left and exits non-zero', async () => {
    const started = await npmStart();
    const engine = await chatEnginePid(started);
    process.kill(started.gateway, 'SIGKILL');
    const { code } = await started.exited;
    expect(code).toBe(128 + 9);
    expect(started.output()).toContain(`stopped the engine of slot chat (pid ${engine})`);
    await expectAllGone(started, [started.gateway, engine]);
  }, 90_000);
});
