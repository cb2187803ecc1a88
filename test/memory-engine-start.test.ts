// A first memory use on the embedded database, as a newcomer meets it (docs/memory.md, "The
// embedded database"): `svc memory add` says what the wait is (the database starting, and on
// the very first use that it initialises itself), as the engine route tells it; the
// memory.engine event names the initialisation; once stopped for idleness and used again,
// the CLI says only that it starts. (pg's DeprecationWarning: memory-db-pool.test.ts.) The
// settings report the reranker's gateway URL as this gateway listens, not 8080. A real
// gateway, the built-in engine's embedding slot on the tiny model, [memory] engine = "pgvector".
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Gateway, startGateway, SVC_BIN, svcEnv, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

let home: TempHome;
let gw: Gateway;

beforeAll(async () => {
  home = await homeWithTinySlots([{ name: 'embed', provider: 'builtin', type: 'embedding' }]);
  home.write('svc.toml', '[memory]\nengine = "pgvector"\nidle_timeout_s = 2\n');
  gw = await startGateway(home.home);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

/** `svc memory add <text>`, its stderr read as it comes: a first start (initdb) may take long on a loaded machine. */
function memoryAdd(text: string) {
  const child = spawn(process.execPath, [SVC_BIN, 'memory', 'add', text], { env: svcEnv(home.home, { SVC_API_URL: gw.url }), stdio: ['ignore', 'pipe', 'pipe'] });
  const run = { stdout: '', stderr: '', status: null as number | null, done: false };
  child.stdout.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
  child.once('close', (status) => Object.assign(run, { status, done: true }));
  return run;
}

const engine = async () => (await api(gw.url, '/api/memory/engine')).json;
const engineEvents = async () => ((await api(gw.url, '/api/events?type=memory.engine&limit=1000')).json.events as Array<{ data: { to: string; reason: string } }>).map((e) => e.data);

describe('the embedded memory database says what it is doing while it starts', () => {
  it('a first svc memory add says the database starts and initialises itself, before it answers', async () => {
    expect(await engine()).toMatchObject({ kind: 'embedded', state: 'stopped', initialised: false });
    const first = memoryAdd('the first note opens the store');
    await waitFor(() => first.stderr, { what: 'the CLI to say what the wait is', until: (text) => text.includes('starting the memory database'), timeout: 60_000 });
    expect(first.stderr).toBe('svc: starting the memory database (first use initialises it, which takes a few seconds)…\n');
    await waitFor(() => first.done, { what: 'the first add to finish (initdb, then the start)', timeout: 180_000 });
    expect([first.status, first.stdout]).toEqual([0, expect.stringMatching(/^added [0-9a-f-]{36} at /)]);
    expect(await engine()).toMatchObject({ state: 'ready', initialised: true });
    expect((await engineEvents()).slice(0, 2)).toEqual([
      expect.objectContaining({ to: 'starting', reason: 'first use: initialising the data directory' }),
      expect.objectContaining({ to: 'ready' }),
    ]);
    // Ready: nothing to say.
    const second = memoryAdd('a second note, the database already up');
    await waitFor(() => second.done, { what: 'the second add', timeout: 60_000 });
    expect([second.status, second.stderr]).toEqual([0, '']);
  }, 300_000);

  it('stopped for idleness and used again, the CLI says only that it starts', async () => {
    await waitFor(engine, { what: 'the idle stop', until: (view) => view.state === 'stopped', timeout: 60_000, interval: 200 });
    const again = memoryAdd('a note after the idle stop');
    await waitFor(() => again.done, { what: 'the add after the idle stop', timeout: 120_000 });
    expect([again.status, again.stderr]).toEqual([0, 'svc: starting the memory database…\n']);
  }, 180_000);

  it('reports the reranker\'s gateway URL as this gateway listens, not a fixed 8080', async () => {
    const settings = (await api(gw.url, '/api/settings')).json.settings;
    expect(gw.port).not.toBe(8080);
    expect(settings.memory.embedding.rerank_gateway_url).toBe(`http://127.0.0.1:${gw.port}`);
  });
});
