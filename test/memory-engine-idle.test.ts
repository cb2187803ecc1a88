// GET /api/memory/engine answers from what the supervisor knows (docs/memory.md, "The embedded
// database"): polling it neither starts the embedded database process nor resets its idle
// timer. A real gateway, the built-in engine's embedding slot on the tiny model, the embedded
// pgvector database with [memory].idle_timeout_s = 2: used once, then polled faster than its
// idle timeout, it still stops; asked again after, it stays stopped, its process gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Gateway, startGateway, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots, processAlive } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

let home: TempHome;
let gw: Gateway;
const engine = async () => (await api(gw.url, '/api/memory/engine')).json;
const engineEvents = async () => ((await api(gw.url, '/api/events?limit=1000')).json.events as Array<{ type: string; data: { to: string } }>).filter((e) => e.type === 'memory.engine');

beforeAll(async () => {
  home = await homeWithTinySlots([{ name: 'embed', provider: 'builtin', type: 'embedding' }]);
  home.write('svc.toml', '[memory]\nengine = "pgvector"\nidle_timeout_s = 2\n');
  gw = await startGateway(home.home);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

describe('the engine report does not keep the embedded database awake', () => {
  it('before any use: stopped, no process', async () => {
    expect(await engine()).toMatchObject({ engine: 'pgvector', kind: 'embedded', state: 'stopped', reachable: false, pid: null, rss_bytes: null });
    expect(await engineEvents()).toEqual([]);
  });

  it('polled faster than its idle timeout, the database still stops; polled after, it stays stopped', async () => {
    expect((await api(gw.url, '/api/memory/add', { method: 'POST', body: { text: 'one note to open the store' } })).status).toBe(200);
    const running = await engine();
    expect(running).toMatchObject({ kind: 'embedded', state: 'ready', reachable: true, banks_total: 1 });
    expect(running.version).toMatch(/^\d+\.\d+/);
    const pid = running.pid as number;
    expect(processAlive(pid)).toBe(true);

    // Every 200 ms against an idle timeout of 2 s: were each poll a use, it would never stop.
    const stopped = await waitFor(engine, { what: 'the idle stop while the engine is polled', until: (view) => view.state === 'stopped', timeout: 60_000, interval: 200 });
    expect(stopped).toMatchObject({ reachable: false, pid: null, rss_bytes: null, banks_total: 1, version: running.version });
    await waitFor(async () => processAlive(pid), { what: 'the database process to exit', until: (alive) => !alive, timeout: 30_000, interval: 100 });

    // Stopped, asked ten times in a row: each answer comes after the one before, so a report
    // that started the database (at once or in the background) shows it in the next answer.
    for (let i = 0; i < 10; i++) expect(await engine()).toMatchObject({ state: 'stopped', pid: null, banks_total: 1 });
    const states = (await engineEvents()).map((e) => e.data.to);
    expect(states).toEqual(['starting', 'ready', 'stopping', 'stopped']);
  }, 180_000);
});
