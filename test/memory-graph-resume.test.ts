// The graph extraction queue survives a gateway restart (docs/memory.md, "Graph"): an item is
// marked pending before its add is answered, and the next gateway queues the pending items
// again on its first memory use. A real gateway, the embedded pgvector database, the built-in
// engine's embedding slot and an llm slot on the tiny model as the extraction slot. The slot
// is paused (SIGSTOP) so the queued items cannot be built, then the gateway is killed; the
// next gateway builds them, and only them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Gateway, startGateway, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots, processAlive } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

let home: TempHome;
let gw: Gateway;
let pausedPid: number | undefined;
const status = async () => (await api(gw.url, '/api/memory/graph/status')).json;
const add = async (text: string) => {
  const added = await api(gw.url, '/api/memory/add', { method: 'POST', body: { text } });
  expect(added.status, added.text).toBe(200);
};

beforeAll(async () => {
  home = await homeWithTinySlots([
    { name: 'embed', provider: 'builtin', type: 'embedding' },
    { name: 'graph', provider: 'builtin', contextSize: 4096 },
  ]);
  home.write('svc.toml', '[memory]\nengine = "pgvector"\n\n[memory.graph]\nenabled = true\nextraction_slot = "graph"\n');
  gw = await startGateway(home.home);
}, 60_000);

afterAll(async () => {
  if (pausedPid !== undefined && processAlive(pausedPid)) process.kill(pausedPid, 'SIGKILL');
  await gw?.stop();
});

describe('graph extraction across a gateway restart', () => {
  it('items queued when the gateway died are built by the next one, in order, and nothing else', async () => {
    await add('Ada Lovelace wrote the first program for the Analytical Engine.');
    await waitFor(status, { what: 'the first extraction', until: (s) => s.in_flight === 0 && s.builds_ok + s.errors >= 1, timeout: 240_000, interval: 200 });
    expect((await status()).builds_ok).toBe(1);

    // The extraction slot paused: the next extraction's request is never answered.
    const slot = (await api(gw.url, '/api/slots/graph')).json;
    expect(slot.state).toBe('ready');
    pausedPid = slot.pid as number;
    process.kill(pausedPid, 'SIGSTOP');
    const texts = ['Grace Hopper found a moth in the Mark II relay.', 'Alan Turing ran along the Thames.', 'Edsger Dijkstra wrote notes by hand in Austin.'];
    for (const text of texts) await add(text);
    expect((await status()).in_flight).toBe(3);
    expect((await status()).builds_ok).toBe(1);

    await gw.kill();
    process.kill(pausedPid, 'SIGKILL');
    await waitFor(async () => processAlive(pausedPid!), { what: 'the paused slot to die', until: (alive) => !alive, timeout: 30_000, interval: 100 });

    gw = await startGateway(home.home);
    expect(await status()).toMatchObject({ enabled: true, in_flight: 0, builds_ok: 0 });
    // The first memory use opens the store; the pending items are queued again.
    expect((await api(gw.url, '/api/memory/list')).json.items).toHaveLength(4);
    const done = await waitFor(status, { what: 'the resumed extractions', until: (s) => s.in_flight === 0 && s.builds_ok + s.errors >= 3, timeout: 240_000, interval: 200 });
    expect(done).toMatchObject({ builds_ok: 3, errors: 0 });
    // Nothing is left without an extraction: a retry finds nothing to queue.
    expect((await api(gw.url, '/api/memory/graph/retry', { method: 'POST', body: {} })).json).toMatchObject({ queued: 0, skipped: 0 });
    const built = ((await api(gw.url, '/api/events?limit=1000')).json.events as Array<{ type: string; data: { id: string } }>).filter((e) => e.type === 'memory.graph.built');
    const items = (await api(gw.url, '/api/memory/list')).json.items as Array<{ id: string; text: string }>;
    expect(built.map((e) => items.find((i) => i.id === e.data.id)?.text)).toEqual(texts);
  }, 600_000);
});
