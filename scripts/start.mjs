#!/usr/bin/env node
// `npm start`: run the gateway from this checkout with a home inside it (.svc-home/,
// git-ignored), so a fresh clone runs without root and writes nothing outside the checkout.
// An explicit SVC_HOME wins. Extra arguments go to `svc serve` (e.g. --port 9000).
//
// A fresh home works out of the box: the tiny demo model is written into the home's models
// directory if it is missing, and when the home has no slots yet, a chat slot and an
// embedding slot on the built-in engine (node-llama-cpp, no llama-server needed) are created
// through the gateway's own API, exactly as `svc model register` and `svc slot create` would.
// Existing slots are never touched.
//
// Stopping: SIGINT, SIGTERM and SIGHUP are passed to the gateway, which stops its engines, and
// this exits with the gateway's exit code (128 + the signal's number when a signal killed it).
// `npm start` execs this script (package.json), so a signal npm forwards arrives here. A
// gateway that dies without stopping its engines (SIGKILL, a crash) would leave them running
// for a successor to re-adopt; a foreground run has none, so they are stopped here.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const svcHome = process.env.SVC_HOME || join(root, '.svc-home');
// svc's code cache (docs/performance.md, Start-up) goes into the home too, not ~/.cache.
const env = { ...process.env, SVC_HOME: svcHome, SVC_CACHE_DIR: process.env.SVC_CACHE_DIR || join(svcHome, 'cache') };
const say = (line) => process.stdout.write(`svc start: ${line}\n`);
const dist = (rel) => import(pathToFileURL(join(root, 'dist', rel)).href);

/** The demo slots: both on the CPU, which is plenty for a 0.6 MB model; contexts that fit the README's examples (TINY_DEMO_CONTEXT). */
const starterSlots = (context) => [
  { name: 'chat', type: 'llm', provider: 'builtin', device: 'cpu', ctx_size: context.chat },
  { name: 'embed', type: 'embedding', provider: 'builtin', device: 'cpu', ctx_size: context.vectors },
];

async function ensureTinyModel() {
  const { resolvePaths, hostFacts } = await dist('config/paths.js');
  const { writeTinyModel } = await dist('engines/gguf/tiny-model.js');
  const { TINY_MODEL_ID, TINY_DEMO_CONTEXT } = await dist('protocol/builtin-models.js');
  const file = join(resolvePaths(hostFacts(env)).defaultModelsDir, `${TINY_MODEL_ID}.gguf`);
  if (!existsSync(file)) {
    await writeTinyModel(file);
    say(`wrote the tiny demo model (random weights, nonsense text, every step real): ${file}`);
  }
  return { id: TINY_MODEL_ID, file, context: TINY_DEMO_CONTEXT };
}

/**
 * A home without svc.toml gets a starter one: memory on the embedded pgvector engine, which
 * needs nothing installed (the schema's default stays the spec's hindsight daemon).
 * An existing file is never touched.
 */
async function ensureStarterConfig() {
  const { resolvePaths, hostFacts } = await dist('config/paths.js');
  const { writeFileAtomic } = await dist('config/atomic.js');
  const file = resolvePaths(hostFacts(env)).svcToml;
  if (existsSync(file)) return;
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, '# Written by `npm start` for a fresh home; every other key has its default (docs/configuration.md).\n[memory]\nengine = "pgvector"\n');
  say(`wrote ${file}: memory on the embedded pgvector engine`);
}

async function call(base, method, path, body) {
  const response = await fetch(`${base}${path}`, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body && JSON.stringify(body) });
  const json = await response.json().catch(() => ({}));
  return { status: response.status, json };
}

/** A home without slots gets the demo slots; anything the API refuses is reported, not fatal. */
async function configureStarterSlots(base, model) {
  const slots = await call(base, 'GET', '/api/slots');
  if (slots.status !== 200) return say(`could not list slots (${slots.status} ${JSON.stringify(slots.json.error ?? slots.json)}); not creating demo slots`);
  if (slots.json.slots.length > 0) return;
  // 409: the id is already registered (for this file or another): the demo slots use it as it is.
  const registered = await call(base, 'POST', '/api/models', { id: model.id, path: model.file });
  if (registered.status >= 300 && registered.status !== 409) return say(`could not register ${model.file}: ${registered.json.error?.message ?? registered.status}`);
  for (const slot of starterSlots(model.context)) {
    const created = await call(base, 'POST', '/api/slots', { ...slot, model: model.id });
    if (created.status === 201) say(`created slot ${slot.name}: ${slot.type} on the built-in engine, model ${model.id}, port ${created.json.port}`);
    else say(`could not create slot ${slot.name}: ${created.json.error?.message ?? created.status}`);
  }
}

function banner(base) {
  const lines = [
    '',
    `svc is up: ${base}`,
    `  API status:   ${base}/api/status        OpenAI base URL: ${base}/v1`,
    // The gateway serves dist/web at / (src/server/routes/dashboard.ts); `npm run build` writes it.
    existsSync(join(root, 'dist/web/index.html')) ? `  dashboard:    ${base}/` : '  dashboard:    not built (dist/web/index.html is missing: npm run build); the API and `svc` work now',
    '  try it:',
    `    curl -s ${base}/v1/chat/completions -H 'content-type: application/json' \\`,
    `      -d '{"model":"chat","messages":[{"role":"user","content":"Hello!"}],"max_tokens":32}'`,
    '  add a real model (any GGUF file):',
    `    export SVC_HOME=${svcHome}   # the CLI then finds this gateway, on any port (docs/cli.md)`,
    '    node dist/bin/svc.js model register qwen3-0.6b --path /models/Qwen3-0.6B-Q8_0.gguf',
    '    node dist/bin/svc.js slot create qwen --provider builtin --model qwen3-0.6b --hardware cpu',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Engines the gateway left running in its home (none after a graceful stop), stopped. */
async function stopLeftoverEngines() {
  const { resolvePaths, hostFacts } = await dist('config/paths.js');
  const { stopLeftoverEngines: stop } = await dist('setup/leftover-engines.js');
  const { engines } = await stop(resolvePaths(hostFacts(env)).stateRoot);
  for (const engine of engines) {
    say(`${engine.stopped ? 'stopped' : 'could not stop'} the engine of slot ${engine.slot} (pid ${engine.pid}) that the gateway left running${engine.escalated ? ' (SIGKILL)' : ''}`);
  }
}

async function exitWith(code, signal) {
  if (signal) say(`the gateway was killed by ${signal}`);
  await stopLeftoverEngines().catch((error) => say(`could not stop the engines the gateway left: ${error.message}`));
  process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
}

async function main() {
  const model = await ensureTinyModel();
  await ensureStarterConfig();
  const child = spawn(process.execPath, [join(root, 'dist/bin/svc.js'), 'serve', ...process.argv.slice(2)], { env, stdio: ['inherit', 'pipe', 'inherit'] });
  // A Ctrl-C or a closed terminal reaches the gateway directly too; it ignores the repeat.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => void exitWith(code, signal));
  let pending = '';
  let configured = false;
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    if (configured) return;
    pending += chunk.toString();
    const match = /listening on (http:\/\/\S+)/.exec(pending);
    if (!match) return;
    configured = true;
    // A wildcard bind is reached on loopback.
    const base = match[1].replace('://0.0.0.0:', '://127.0.0.1:').replace('://[::]:', '://127.0.0.1:');
    configureStarterSlots(base, model).catch((error) => say(`could not configure the demo slots: ${error.message}`)).finally(() => banner(base));
  });
}

main().catch((error) => {
  process.stderr.write(`svc start: ${error.stack ?? error}\n`);
  process.exit(1);
});
