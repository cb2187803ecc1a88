// One gateway per home (issue 10, 1.1): a second `svc serve` on a home another one serves
// exits 7 with one line and touches nothing (above all, not the first one's engines); the
// lock file in the state root is taken over when stale and removed on every exit path.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { homeWithFaultSlots } from './helpers/faults.js';
import { api, REPO_ROOT, SVC_BIN, svcEnv, tempHome, useTempGateways, type TempHome } from './helpers/gateway.js';
import { processAlive, tinyModel } from './helpers/llama.js';
import { freeSlotPort } from './helpers/ports.js';
import { EventReader } from './helpers/sse.js';
import { waitFor } from './helpers/wait.js';

const spawned: ChildProcess[] = [];
const homes: TempHome[] = [];
afterEach(() => {
  for (const child of spawned.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const home of homes.splice(0)) rmSync(home.home, { recursive: true, force: true });
});
// Registered after the cleanup above, so it runs before it (vitest runs afterEach hooks as a
// stack): the gateways stop before their homes are removed under them.
const { gateway: start } = useTempGateways(afterEach);

const lockFile = (home: TempHome) => join(home.stateRoot, 'svc.lock');
const readLock = (home: TempHome) => JSON.parse(readFileSync(lockFile(home), 'utf8')) as { pid: number; url: string | null; home: string };

interface Run {
  child: ChildProcess;
  output: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function serve(home: TempHome, args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [SVC_BIN, 'serve', ...args], { env: svcEnv(home.home, env), stdio: ['ignore', 'pipe', 'pipe'] });
  spawned.push(child);
  let output = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, output: () => output, stderr: () => stderr, exited };
}

/** Each ready slot's engine pid, by slot name. */
async function enginePids(url: string): Promise<Record<string, number>> {
  const slots = (await api(url, '/api/slots')).json.slots as { name: string; state: string; pid: number | null }[];
  return Object.fromEntries(slots.filter((s) => s.state === 'ready').map((s) => [s.name, s.pid!]));
}

/** The pid of a process that has exited: what a lock left by a crashed gateway names. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((done) => child.once('exit', done));
  return child.pid!;
}

function plantLock(home: TempHome, pid: number): void {
  mkdirSync(home.stateRoot, { recursive: true });
  writeFileSync(lockFile(home), JSON.stringify({ pid, home: home.home, config_root: home.configRoot, state_root: home.stateRoot, started_at: new Date(0).toISOString(), url: 'http://127.0.0.1:1' }));
}

describe('a second svc serve on a served home', () => {
  it('exits 7 naming the first one; the first one\'s stream completes and its engines keep their pids', async () => {
    // "slow" streams 150 chunks 50 ms apart (the fault engine); "tiny" is the built-in engine,
    // which a gateway re-adopts from its state.json: what a second gateway used to adopt and stop.
    const home = await homeWithFaultSlots([{ name: 'slow', knobs: '--chunk-ms 50' }]);
    homes.push(home);
    const model = await tinyModel(home.home);
    home.write('slots/tiny.toml', `[slot]\nname = "tiny"\nprovider = "builtin"\nport = ${await freeSlotPort()}\ndevice = "cpu"\n\n[model]\npath = ${JSON.stringify(model)}\ncontext_size = 512\n`);
    const first = await start(home, { env: home.env });
    expect((await api(first.url, '/api/slots/tiny/load', { method: 'POST' })).status).toBe(200);
    const response = await fetch(`${first.url}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'slow', messages: [{ role: 'user', content: 'go' }], max_tokens: 150, stream: true }),
    });
    expect(response.status).toBe(200);
    const events = new EventReader(response.body!.getReader());
    expect(await events.nextContent()).toBe('x');
    const pids = await enginePids(first.url);
    expect(Object.values(pids).every((pid) => processAlive(pid))).toBe(true);

    // Same port as the first: today's failure was adopting the engines, failing to listen, and stopping them.
    const second = serve(home, ['--port', String(first.port)], home.env);
    expect(await second.exited).toBe(7);
    const lines = second.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^svc: another svc \(pid \d+\) already serves this home/);
    expect(lines[0]).toContain(`(pid ${first.process.pid})`);
    expect(lines[0]).toContain(first.url);
    expect(lines[0]).toContain(home.home);
    // The stream was still going when the second one gave up, so the check below means something.
    expect((await api(first.url, '/api/slots/slow')).json.in_flight).toBe(1);

    let rest = '';
    for (let data = await events.next(); data !== null; data = await events.next()) rest += `${data}\n`;
    expect(rest.trimEnd().split('\n').at(-1)).toBe('[DONE]');
    expect(rest).not.toContain('"error"');
    expect(await enginePids(first.url)).toEqual(pids);
    expect(Object.values(pids).every((pid) => processAlive(pid))).toBe(true);
    expect(readLock(home).pid).toBe(first.process.pid);
  }, 60_000);
});

describe('the lock file', () => {
  it('names the gateway and its URL while it serves, and is gone after a graceful stop', async () => {
    const home = tempHome();
    homes.push(home);
    const gateway = serve(home, ['--port', '0']);
    await waitFor(() => /listening on/.test(gateway.output()), { what: 'the gateway to listen', timeout: 20_000 });
    const url = /listening on (http:\/\/\S+)/.exec(gateway.output())![1];
    await waitFor(() => existsSync(lockFile(home)) && readLock(home).url !== null, { what: 'the lock file to name the URL' });
    expect(readLock(home)).toMatchObject({ pid: gateway.child.pid, url, home: home.home });
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    expect(existsSync(lockFile(home))).toBe(false);
  });

  it('a stale lock (its pid dead) is taken over', async () => {
    const home = tempHome();
    homes.push(home);
    plantLock(home, await deadPid());
    const gateway = await start(home);
    // The URL is written just after the "listening on" line the helper waits for.
    await waitFor(() => readLock(home).url !== null, { what: 'the lock file to name the URL' });
    expect(readLock(home)).toMatchObject({ pid: gateway.process.pid, url: gateway.url });
    expect((await api(gateway.url, '/api/health/system')).status).toBe(200);
  });

  it('a lock whose pid is alive but not svc is taken over', async () => {
    const home = tempHome();
    homes.push(home);
    const stranger = spawn('sleep', ['60']);
    spawned.push(stranger);
    plantLock(home, stranger.pid!);
    const gateway = await start(home);
    expect(readLock(home).pid).toBe(gateway.process.pid);
    expect(processAlive(stranger.pid!)).toBe(true);
  });

  it('of several gateways started at once on a stale lock, exactly one takes it and serves; the others exit 7', async () => {
    const home = tempHome();
    homes.push(home);
    plantLock(home, await deadPid());
    const racers = Array.from({ length: 4 }, () => serve(home, ['--port', '0']));
    const outcomes = await Promise.all(racers.map(async (racer) => {
      await waitFor(() => racer.child.exitCode !== null || /listening on/.test(racer.output()), { what: 'the racer to exit or listen', timeout: 30_000 });
      return racer.child.exitCode ?? 'serving';
    }));
    expect(outcomes.filter((o) => o === 'serving')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 7)).toHaveLength(3);
    const winner = racers[outcomes.indexOf('serving')]!;
    expect(readLock(home).pid).toBe(winner.child.pid);
    for (const loser of racers.filter((r) => r !== winner)) expect(loser.stderr()).toContain(`(pid ${winner.child.pid})`);
    winner.child.kill('SIGTERM');
    expect(await winner.exited).toBe(0);
    expect(existsSync(lockFile(home))).toBe(false);
  }, 60_000);

  it('of many processes taking over one stale lock at the same instant, exactly one wins', async () => {
    const home = tempHome();
    homes.push(home);
    plantLock(home, await deadPid());
    // Each racer is `node <dir>/svc.js serve …` (so the others see a live gateway in its lock),
    // spins until the go file appears, takes the lock, reports, and holds it until told to exit.
    const dir = join(home.home, 'racers');
    mkdirSync(dir);
    const script = join(dir, 'svc.js');
    const dist = (rel: string) => JSON.stringify(pathToFileURL(join(REPO_ROOT, 'dist', rel)).href);
    writeFileSync(script, [
      "import { existsSync, writeFileSync } from 'node:fs';",
      `const { acquireInstanceLock } = await import(${dist('config/instance-lock.js')});`,
      `const { hostFacts, resolvePaths } = await import(${dist('config/paths.js')});`,
      'const [go, out, done] = process.argv.slice(3);',
      "writeFileSync(`${out}.ready`, '');",
      'while (!existsSync(go));',
      "const outcome = acquireInstanceLock(resolvePaths(hostFacts(process.env)));",
      "writeFileSync(out, 'acquired' in outcome ? 'won' : `lost to ${outcome.heldBy.pid}`);",
      'setInterval(() => existsSync(done) && process.exit(0), 20);',
    ].join('\n'));
    const go = join(dir, 'go');
    const done = join(dir, 'done');
    const outs = Array.from({ length: 8 }, (_, i) => join(dir, `out-${i}`));
    const racers = outs.map((out) => spawn(process.execPath, [script, 'serve', go, out, done], { env: svcEnv(home.home), stdio: 'inherit' }));
    spawned.push(...racers);
    await waitFor(() => outs.every((out) => existsSync(`${out}.ready`)), { what: 'every racer to be ready' });
    writeFileSync(go, '');
    await waitFor(() => outs.every((out) => existsSync(out)), { what: 'every racer to write its result' });
    const results = outs.map((out) => readFileSync(out, 'utf8'));
    writeFileSync(done, '');
    expect(results.filter((r) => r === 'won')).toHaveLength(1);
    const winner = racers[results.indexOf('won')]!.pid;
    expect(readLock(home).pid).toBe(winner);
    expect(results.filter((r) => r !== 'won')).toEqual(Array(outs.length - 1).fill(`lost to ${winner}`));
  }, 60_000);

  it('is released when the configuration is invalid (exit 4)', async () => {
    const home = tempHome({ 'svc.toml': '[slots]\nidle_timeout_s = "soon"\n' });
    homes.push(home);
    plantLock(home, await deadPid());
    const gateway = serve(home, ['--port', '0']);
    expect(await gateway.exited).toBe(4);
    expect(existsSync(lockFile(home))).toBe(false);
  });

  it('is released when the port cannot be listened on (exit 6)', async () => {
    const home = tempHome();
    homes.push(home);
    plantLock(home, await deadPid());
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((done) => blocker.once('listening', done));
    try {
      const gateway = serve(home, ['--port', String((blocker.address() as { port: number }).port)]);
      expect(await gateway.exited).toBe(6);
      expect(existsSync(lockFile(home))).toBe(false);
    } finally {
      blocker.close();
    }
  });
});

describe('svc serve --reload', () => {
  it('the parent holds no lock; each child takes it in turn, and it is gone after the parent stops', async () => {
    const home = tempHome();
    homes.push(home);
    const parent = serve(home, ['--port', '0', '--reload']);
    await waitFor(() => /listening on/.test(parent.output()), { what: 'the first child to listen', timeout: 20_000 });
    await waitFor(() => existsSync(lockFile(home)) && readLock(home).url !== null, { what: 'the lock file to name the URL' });
    const firstChild = readLock(home).pid;
    expect(firstChild).not.toBe(parent.child.pid);

    home.write('svc.toml', '[slots]\nidle_timeout_s = 42\n');
    await waitFor(() => (parent.output().match(/listening on/g) ?? []).length >= 2, { what: 'the second child to listen', timeout: 20_000 });
    await waitFor(() => existsSync(lockFile(home)) && readLock(home).url !== null && readLock(home).pid !== firstChild, { what: 'the lock file to name the second child' });
    expect(readLock(home).pid).not.toBe(parent.child.pid);
    expect(processAlive(firstChild)).toBe(false);
    expect(parent.output()).not.toContain('already serves');

    parent.child.kill('SIGTERM');
    expect(await parent.exited).toBe(0);
    expect(existsSync(lockFile(home))).toBe(false);
  }, 60_000);
});
