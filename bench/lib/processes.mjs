// The processes a bench run starts, each its own process so the load generator (this
// process), the upstream and the gateway do not share an event loop: the fast upstream, a
// temp SVC_HOME that routes to it both as a remote upstream and as slots, and the gateway.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const UPSTREAM_SCRIPT = join(REPO_ROOT, 'bench/upstream.mjs');
const SVC_BIN = join(REPO_ROOT, 'dist/bin/svc.js');

/** Model ids the bench asks for: the remote upstream's, the warm slot's and the cold slot's. */
export const MODELS = { remote: 'bench-remote', slot: 'bench', cold: 'cold' };

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A port the OS says is free; `range` picks one in [from, to) (slot ports must be 8081-8200). */
export function freePort(range) {
  const candidate = range ? range[0] + Math.floor(Math.random() * (range[1] - range[0])) : 0;
  return new Promise((done, fail) => {
    const server = createServer().once('error', () => (range ? freePort(range).then(done, fail) : fail(new Error('no free port'))));
    server.listen(candidate, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** Spawn a child and resolve once `pattern` shows up in its output; rejects if it exits first. */
function spawnUntil(command, args, env, pattern, what) {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
  const up = new Promise((done, fail) => {
    const check = (chunk) => {
      output += chunk.toString();
      if (pattern.test(output)) done(performance.now());
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    void exited.then((e) => fail(new Error(`${what} exited (${e.code ?? e.signal}) before it was up:\n${output}`)));
    setTimeout(() => fail(new Error(`${what} was not up within 30 s:\n${output}`)), 30_000).unref();
  });
  return {
    child, up, output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The fast upstream on its own port, as a remote upstream (no load time). */
export async function startUpstream(port, extraArgs = []) {
  const proc = spawnUntil(process.execPath, [UPSTREAM_SCRIPT, '--port', String(port), '--alias', MODELS.remote, ...extraArgs], process.env, /listening on/, 'bench upstream');
  await proc.up;
  return { ...proc, pid: proc.child.pid, url: `http://127.0.0.1:${port}` };
}

/**
 * A temp SVC_HOME: upstreams.toml names the fast upstream (static model list, so no model
 * list is fetched); slots/bench.toml and slots/cold.toml are llama-server slots whose
 * "binary" is a wrapper that runs the same upstream script (cold with a simulated load time).
 */
export async function makeHome({ upstreamPort, coldLoadMs }) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const config = join(home, 'etc/svc');
  mkdirSync(join(config, 'slots'), { recursive: true });
  const wrapper = join(home, 'llama-server');
  // bash, for $EPOCHREALTIME (no fork to read the clock): the engine stamps its start with it.
  writeFileSync(wrapper, `#!/bin/bash\nBENCH_EXEC_AT=$EPOCHREALTIME exec ${JSON.stringify(process.execPath)} ${JSON.stringify(UPSTREAM_SCRIPT)} "$@"\n`);
  chmodSync(wrapper, 0o755);
  // The slot's model file: the engine never reads it, the adapter only checks that it is a file.
  const model = join(home, 'bench.gguf');
  writeFileSync(model, 'GGUF');
  writeFileSync(join(config, 'upstreams.toml'), `[upstreams.bench]\nbase_url = "http://127.0.0.1:${upstreamPort}/v1"\nmodels = ["${MODELS.remote}"]\n`);
  const slot = (name, port, extra) =>
    `[slot]\nname = "${name}"\nport = ${port}\ndevice = "cpu"\nidle_timeout_s = 0\n\n[model]\npath = ${JSON.stringify(model)}\ncontext_size = 512\n\n[server]\nextra_args = "--alias ${name} ${extra}"\n`;
  const slotPorts = { [MODELS.slot]: await freePort([8100, 8150]), [MODELS.cold]: await freePort([8150, 8200]) };
  writeFileSync(join(config, 'slots/bench.toml'), slot(MODELS.slot, slotPorts[MODELS.slot], ''));
  writeFileSync(join(config, 'slots/cold.toml'), slot(MODELS.cold, slotPorts[MODELS.cold], `--load-ms ${coldLoadMs}`));
  return { home, wrapper, slotUrl: (name) => `http://127.0.0.1:${slotPorts[name]}`, remove: () => rmSync(home, { recursive: true, force: true }) };
}

/** Environment for the gateway: the temp home, the wrapper as llama-server, nothing else of SVC_*. */
function gatewayEnv(home, extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_')));
  // Its own cache directory: every bench run starts without a code cache, as a new build does.
  return { ...env, SVC_HOME: home.home, SVC_LLAMA_SERVER: home.wrapper, XDG_CACHE_HOME: join(home.home, 'cache'), ...extra };
}

/**
 * Start `svc serve` and time it: from spawn to its "listening" line, and to the first answer
 * of GET /api/health/system (polled every 2 ms from then on, the measure the issue names).
 */
export async function startGateway(home, nodeArgs = [], env = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const spawnedAt = performance.now();
  const proc = spawnUntil(process.execPath, [...nodeArgs, SVC_BIN, 'serve', '--port', String(port)], gatewayEnv(home, env), /listening on http/, 'svc serve');
  // The polls start once it says it listens: a fetch every 2 ms from this process during its
  // start-up took CPU from it on this 2-core machine (measured: 13-17 ms of its start-up).
  const listeningAt = await proc.up;
  let answeredAt;
  for (;;) {
    const ok = await fetch(`${url}/api/health/system`).then((r) => r.arrayBuffer().then(() => r.status === 200), () => false);
    if (ok) {
      answeredAt = performance.now();
      break;
    }
    if (proc.child.exitCode !== null) throw new Error(`svc serve exited:\n${proc.output()}`);
    await sleep(2);
  }
  return { ...proc, pid: proc.child.pid, url, startup: { listening_ms: listeningAt - spawnedAt, health_ms: answeredAt - spawnedAt } };
}

/** Resident set size of a process, in MB (VmRSS from /proc). */
export function rssMb(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/**
 * Anonymous (private) memory of a process, in MB: its RSS less the file pages it maps, most
 * of them the node binary's own code, shared with every other Node process on the machine.
 */
export function anonMb(pid) {
  const match = /Anonymous:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** Open file descriptors of a process (sockets, files, pipes): its OS-level handles. */
export function openFds(pid) {
  return readdirSync(`/proc/${pid}/fd`).length;
}

const TICKS_PER_SECOND = 100;
/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** The floor proxy (bench/floor-proxy.mjs) in front of `upstreamUrl`. */
export async function startFloorProxy(port, upstreamUrl, nodeArgs = []) {
  const proc = spawnUntil(process.execPath, [...nodeArgs, join(REPO_ROOT, 'bench/floor-proxy.mjs'), '--port', String(port), '--upstream', upstreamUrl], process.env, /listening/, 'floor proxy');
  await proc.up;
  return { ...proc, pid: proc.child.pid, url: `http://127.0.0.1:${port}` };
}

/**
 * Portkey's open-source gateway (@portkey-ai/gateway, a devDependency), headless, for
 * comparison: requests name the same fast upstream as an OpenAI provider with a custom host
 * (portkeyHeaders). Its own start-up line is what we wait for.
 */
export async function startPortkey(port) {
  const script = join(REPO_ROOT, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  const proc = spawnUntil(process.execPath, [script, `--port=${port}`, '--headless'], { ...process.env, NODE_ENV: 'production' }, /Ready for connections/, 'portkey');
  await proc.up;
  return { ...proc, pid: proc.child.pid, url: `http://127.0.0.1:${port}` };
}

/** The headers that send a Portkey request to `upstreamUrl` (an OpenAI-compatible server). */
export const portkeyHeaders = (upstreamUrl) => ({ 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${upstreamUrl}/v1`, authorization: 'Bearer sk-bench' });
