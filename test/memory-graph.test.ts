// Graph extraction end to end: a real gateway, [memory] engine = "pgvector" (the embedded
// database process), the built-in engine's embedding slot and an llm slot on the tiny model
// as the extraction slot. The tiny model's entities are nonsense, but the JSON schema makes
// every answer well-formed, so the rows and the subgraph are. Also the settings' PUT (its
// 400s and 422s), the CLI, the retry, and the hindsight drop-in written into a temp dir.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITY_TYPES } from '../src/memory/graph/extraction.js';
import { api, type Gateway, runSvcAsync, startGateway, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

let home: TempHome;
let gw: Gateway;
let dropInDir: string;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => api(gw.url, path, { method: 'POST', body, headers });
const put = (body: unknown) => api(gw.url, '/api/memory/graph', { method: 'PUT', body });
const status = async () => (await api(gw.url, '/api/memory/graph/status')).json;
const cli = (args: string[]) => runSvcAsync(['memory', 'graph', ...args], { home: home.home, env: { SVC_API_URL: gw.url } });
/** Until the queue is empty and `done` items have an outcome. */
const settled = (done: number) => waitFor(status, { what: `${done} extractions to end`, until: (s) => s.in_flight === 0 && s.builds_ok + s.errors >= done, timeout: 240_000, interval: 200 });

beforeAll(async () => {
  home = await homeWithTinySlots([
    { name: 'embed', provider: 'builtin', type: 'embedding' },
    { name: 'graph', provider: 'builtin', contextSize: 4096 },
    { name: 'spare', provider: 'builtin', extra: 'enabled = false' },
  ]);
  home.write('svc.toml', '[memory]\nengine = "pgvector"\n');
  dropInDir = join(home.home, 'systemd', 'hindsight-api.service.d');
  gw = await startGateway(home.home, { env: { SVC_HINDSIGHT_DROPIN_DIR: dropInDir } });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

describe('memory graph extraction on pgvector', () => {
  const added: string[] = [];

  it('starts off, with the enabled llm slots as the ones it could use', async () => {
    expect(await status()).toEqual({
      enabled: false, extraction_slot: 'utility', route: 'svc/utility', slot_resolves: false, available_slots: ['graph'],
      in_flight: 0, builds_ok: 0, errors: 0, last_built_at: null, last_error: null, llm_timeout_s: 300, engine: 'pgvector',
    });
    const graph = await api(gw.url, '/api/memory/graph');
    expect(graph.json).toMatchObject({ enabled: false, extraction_slot: 'utility', llm_timeout_s: 300, status: { available_slots: ['graph'] } });
  });

  it('refuses bad values with 400 naming the field, and a slot that is not an enabled llm slot with 422 and the slots that are', async () => {
    for (const [body, field] of [[{ llm_timeout_s: 5 }, 'memory.graph.llm_timeout_s'], [{ llm_timeout_s: 30.5 }, 'memory.graph.llm_timeout_s'], [{ enabled: 'yes' }, 'memory.graph.enabled'], [{ extraction_slot: 'Bad Name' }, 'memory.graph.extraction_slot'], [{ colour: 'red' }, 'memory.graph.colour']] as const) {
      const answer = await put(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.error).toMatchObject({ code: 'config.memory_graph_invalid', details: { field, problems: [expect.objectContaining({ path: field })] } });
    }
    for (const slot of ['nope', 'spare', 'embed']) {
      const answer = await put({ enabled: true, extraction_slot: slot });
      expect(answer.status, slot).toBe(422);
      expect(answer.json.error).toMatchObject({ code: 'config.memory_graph_slot_invalid', details: { available_slots: ['graph'], field: 'memory.graph.extraction_slot' } });
    }
    expect((await api(gw.url, '/api/memory/graph', { method: 'PUT', raw: '[1]', headers: { 'content-type': 'application/json' } })).json.error.code).toBe('request.not_an_object');
    expect((await status()).enabled).toBe(false);
  });

  it('queues nothing while off, and a retry then is 409', async () => {
    const answer = await post('/api/memory/add', { text: 'Ada Lovelace wrote the first program for the Analytical Engine in London.' });
    expect(answer.status, answer.text).toBe(200);
    added.push(answer.json.id);
    expect(await status()).toMatchObject({ in_flight: 0, builds_ok: 0 });
    const retry = await post('/api/memory/graph/retry', {});
    expect(retry.status).toBe(409);
    expect(retry.json.error.code).toBe('memory.graph_disabled');
  }, 120_000);

  it('svc memory graph enable --slot writes [memory.graph] (nothing to propagate on pgvector)', async () => {
    const refused = await cli(['enable', '--slot', 'nope']);
    expect(refused.status).toBe(4); // a config.* refusal
    expect(refused.stderr).toContain('"nope" is not an enabled llm slot (one of graph)');
    const enabled = await cli(['enable', '--slot', 'graph', '--timeout', '120', '--json']);
    expect(enabled.status, enabled.stderr).toBe(0);
    const answer = JSON.parse(enabled.stdout);
    expect(answer).toMatchObject({ enabled: true, extraction_slot: 'graph', llm_timeout_s: 120, status: { enabled: true, slot_resolves: true, route: 'svc/graph' } });
    expect(answer.propagation).toMatchObject({ applicable: false, written: false, drop_in: null, error: null });
    expect(readFileSync(join(home.configRoot, 'svc.toml'), 'utf8')).toMatch(/\[memory\.graph\][^[]*enabled = true[^[]*extraction_slot = "graph"[^[]*llm_timeout_s = 120/s);
    const text = await cli(['status']);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain('graph extraction: on (engine pgvector)');
    expect(text.stdout).toContain('extraction slot:  graph\n');
  });

  it('extracts each new memory into well-formed rows, counted in the status, with an event each', async () => {
    const texts = ['Grace Hopper worked on the Harvard Mark I at Harvard University.', "O'Brien said: '; DROP TABLE memory_entities; -- in Paris.", 'The Eiffel Tower stands in Paris, France.'];
    for (const text of texts) {
      const answer = await post('/api/memory/add', { text });
      expect(answer.status, answer.text).toBe(200);
      added.push(answer.json.id);
    }
    const after = await settled(3);
    expect(after).toMatchObject({ builds_ok: 3, errors: 0, last_error: null });
    expect(Date.parse(after.last_built_at)).not.toBeNaN();
    const events = (await api(gw.url, '/api/events?type=memory.graph.built&since=0')).json.events as Array<{ data: { id: string; bank: string; entities: number; relations: number } }>;
    expect(events.map((e) => e.data.id).sort()).toEqual(added.slice(1).sort());
    for (const e of events) expect(e.data).toMatchObject({ bank: 'shared', entities: expect.any(Number), relations: expect.any(Number) });
  }, 300_000);

  it('a retry queues the item added while off; a second finds nothing left', async () => {
    const retry = await post('/api/memory/graph/retry', {});
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json).toEqual({ queued: 1, skipped: 0, banks: ['shared'] });
    expect(await settled(4)).toMatchObject({ builds_ok: 4, errors: 0 });
    expect((await post('/api/memory/graph/retry', {})).json).toEqual({ queued: 0, skipped: 0, banks: [] });
  }, 300_000);

  it('queues memories copied in bulk (an import, a unify) for extraction, as it does added ones', async () => {
    const exported = await api(gw.url, '/api/memory/banks/shared/export');
    expect(exported.status).toBe(200);
    const line = exported.text.split('\n').find((l) => l.includes('Eiffel'))!;
    expect((await api(gw.url, '/api/memory/banks/notes', { method: 'PUT', body: {} })).status).toBe(200);
    const imported = await api(gw.url, '/api/memory/banks/notes/import?on_conflict=new-id', { method: 'POST', raw: `${line}\n`, headers: { 'content-type': 'application/x-ndjson' } });
    expect(imported.status, imported.text).toBe(200);
    expect(imported.json).toMatchObject({ bank: 'notes', added: 1, graph_queued: 1 });
    expect(await settled(5)).toMatchObject({ builds_ok: 5, errors: 0 });
    const unified = await post('/api/memory/migrate/unify', { sources: ['notes'], target: 'archive', apply: true });
    expect(unified.status, unified.text).toBe(200);
    expect(unified.json).toMatchObject({ dry_run: false, totals: { added: 1 }, graph_queued: 1 });
    expect(await settled(6)).toMatchObject({ builds_ok: 6, errors: 0 });
    // Nothing copied is left unbuilt; a dry-run queues nothing and says nothing of the graph.
    expect((await post('/api/memory/graph/retry', {})).json).toMatchObject({ queued: 0 });
    expect((await post('/api/memory/migrate/unify', { sources: ['notes'], target: 'archive' })).json.graph_queued).toBeUndefined();
  }, 300_000);

  it('answers subgraphs of entities and of memories, top and ego, well-formed', async () => {
    const entities = await api(gw.url, '/api/memory/banks/shared/graph/subgraph?kind=entities&mode=top&limit=500');
    expect(entities.status, entities.text).toBe(200);
    expect(entities.json).toMatchObject({ bank: 'shared', kind: 'entities', mode: 'top', by: 'mentions', truncated: false });
    const ids = new Set<string>();
    for (const node of entities.json.nodes) {
      expect(node).toEqual({ id: expect.stringMatching(UUID), kind: 'entity', label: expect.any(String), type: expect.any(String), weight: expect.any(Number), timestamp: expect.any(String) });
      expect(ENTITY_TYPES).toContain(node.type);
      expect(node.weight).toBeGreaterThanOrEqual(1);
      ids.add(node.id);
    }
    for (const edge of entities.json.edges) {
      expect(edge).toEqual({ source: expect.any(String), target: expect.any(String), type: expect.any(String), weight: expect.any(Number) });
      expect(ids.has(edge.source) && ids.has(edge.target)).toBe(true);
    }
    const memories = await api(gw.url, '/api/memory/banks/shared/graph/subgraph?kind=memories&by=recent&limit=2');
    expect(memories.status, memories.text).toBe(200);
    expect(memories.json.nodes.map((n: { id: string }) => n.id)).toEqual(added.slice(-2).reverse());
    expect(memories.json).toMatchObject({ kind: 'memories', by: 'recent', truncated: true });
    for (const node of memories.json.nodes) expect(node).toMatchObject({ kind: 'memory', type: 'world', label: expect.any(String) });
    const start = entities.json.nodes[0];
    if (start) {
      const ego = await api(gw.url, `/api/memory/banks/shared/graph/subgraph?kind=entities&mode=ego&node=${start.id}&depth=2&top_k=3`);
      expect(ego.status, ego.text).toBe(200);
      expect(ego.json.nodes[0]).toEqual(start);
    }
    const memEgo = await api(gw.url, `/api/memory/banks/shared/graph/subgraph?kind=memories&mode=ego&node=${added[0]}`);
    expect(memEgo.status, memEgo.text).toBe(200);
    expect(memEgo.json.nodes[0].id).toBe(added[0]);
  });

  it('refuses a bad subgraph query naming the parameter, an unknown node or bank with 404', async () => {
    const sub = (q: string, bank = 'shared') => api(gw.url, `/api/memory/banks/${bank}/graph/subgraph?${q}`);
    for (const [q, param] of [['kind=people', 'kind'], ['mode=all', 'mode'], ['limit=501', 'limit'], ['limit=0', 'limit'], ['depth=3', 'depth'], ['mode=ego', 'node'], ['node=x%27%3B--', 'node'], ['by=mentions&kind=memories', 'by']] as const) {
      const answer = await sub(q);
      expect(answer.status, q).toBe(400);
      expect(answer.json.error).toMatchObject({ code: 'request.invalid', details: { problems: [expect.objectContaining({ path: param })] } });
    }
    const node = await sub('mode=ego&node=00000000-0000-4000-8000-000000000000');
    expect(node.status).toBe(404);
    expect(node.json.error.code).toBe('memory.graph_node_not_found');
    expect((await sub('kind=entities', 'nobank')).json.error.code).toBe('memory.bank_not_found');
    expect((await sub('kind=entities', 'bad%20bank')).json.error.code).toBe('memory.invalid_bank');
  });

  it("another agent's private memory is no node of anyone else's subgraph", async () => {
    const secret = await post('/api/memory/add', { text: 'Bob keeps his diary in Oslo.' }, { 'x-svc-agent': 'bob', 'x-svc-private': 'true' });
    expect(secret.status, secret.text).toBe(200);
    await settled(5);
    const nodes = async (agent: string) => ((await api(gw.url, '/api/memory/banks/shared/graph/subgraph?kind=memories&limit=500', { headers: { 'x-svc-agent': agent } })).json.nodes as Array<{ id: string }>).map((n) => n.id);
    expect(await nodes('bob')).toContain(secret.json.id);
    expect(await nodes('anonymous')).not.toContain(secret.json.id);
    const ego = await api(gw.url, `/api/memory/banks/shared/graph/subgraph?kind=memories&mode=ego&node=${secret.json.id}`);
    expect(ego.status).toBe(404);
  }, 300_000);

  it('recall with graph: true lists what the graph added, and only what the caller may see', async () => {
    const recall = await post('/api/memory/recall', { query: 'Paris', graph: true });
    expect(recall.status, recall.text).toBe(200);
    expect(recall.json.graph_added).toEqual(expect.any(Array));
    const ids = recall.json.items.map((i: { id: string }) => i.id);
    for (const id of recall.json.graph_added) expect(added).toContain(id);
    expect(new Set(ids).size).toBe(ids.length);
    const plain = await post('/api/memory/recall', { query: 'Paris' });
    expect(plain.json.graph_added).toBeUndefined();
    expect((await post('/api/memory/recall', { query: 'Paris', graph: 'yes' })).status).toBe(400);
  }, 120_000);

  it('on hindsight the PUT writes the drop-in byte for byte and reports systemctl; disable from the CLI', async () => {
    const engine = await api(gw.url, '/api/settings', { method: 'PUT', body: { memory: { engine: 'hindsight' } } });
    expect(engine.status, engine.text).toBe(200);
    const answer = await put({ llm_timeout_s: 90 });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.propagation).toMatchObject({ applicable: true, slot: 'graph', model: 'svc/graph', timeout_s: 90, drop_in: join(dropInDir, 'extraction-model.conf'), written: true });
    // No systemd here (or no hindsight-api.service): reported, the settings are written all the same.
    expect(answer.json.propagation.restarted).toBe(false);
    expect(answer.json.propagation.error).toEqual(expect.any(String));
    expect(readFileSync(join(dropInDir, 'extraction-model.conf'), 'utf8')).toBe('# Managed by svc (ADR-0023 — memory.graph.extraction_slot / llm_timeout_s).\n# Overrides HINDSIGHT_API_LLM_MODEL and HINDSIGHT_API_LLM_TIMEOUT in the base\n# hindsight-api.service unit. Do not edit by hand; set via `svc memory graph\n# enable --slot <name>` or the dashboard, which rewrites this file and\n# restarts the service.\n[Service]\nEnvironment=HINDSIGHT_API_LLM_MODEL=svc/graph\nEnvironment=HINDSIGHT_API_LLM_TIMEOUT=90\n');
    expect(answer.json.status).toMatchObject({ llm_timeout_s: 90, engine: 'hindsight' });
    const disabled = await cli(['disable']);
    expect(disabled.status, disabled.stderr).toBe(0);
    expect(disabled.stdout).toContain('graph extraction: off (engine hindsight)');
    expect(disabled.stderr).toContain('propagation: ');
    expect((await status()).enabled).toBe(false);
    const updates = (await api(gw.url, '/api/events?type=memory.graph.updated&since=0')).json.events;
    expect(updates.length).toBeGreaterThanOrEqual(3);
  });
});
