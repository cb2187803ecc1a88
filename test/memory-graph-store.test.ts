// The graph tables against real Postgres with pgvector (the embedded database process), with
// extractions chosen by the test rather than a model's: the upsert of entities, the subgraph
// of each kind and mode, recall's related items, visibility, and the cascades of a delete.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemsToExtract, markExtraction, relatedItems, writeExtraction } from '../src/memory/graph/graph-store.js';
import { subgraph, type SubgraphQuery } from '../src/memory/graph/subgraph.js';
import { openMemoryStore } from '../src/memory/open-store.js';
import type { SqlMemoryStore } from '../src/memory/store.js';
import { REPO_ROOT, tempHome } from './helpers/gateway.js';

const ENTRY = join(REPO_ROOT, 'dist/memory/db/pg-process.js');
const DIM = 8;
const random = () => Array.from({ length: DIM }, () => Math.random() * 2 - 1);
const ANYONE = { privateTag: 'visibility:private', ownTag: 'agent:anonymous' };
const BOB = { privateTag: 'visibility:private', ownTag: 'agent:bob' };
const top = (kind: SubgraphQuery['kind'], by: string, limit = 100): SubgraphQuery => ({ kind, mode: 'top', by, limit, depth: 1, topK: 10 });

describe('the graph tables', () => {
  const home = tempHome();
  let store: SqlMemoryStore;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    store = openMemoryStore({ stateRoot: home.stateRoot, pgvectorUrl: '', idleTimeoutS: () => 600, entry: ENTRY });
    const add = async (name: string, text: string, tags: string[] = ['agent:anonymous']) => {
      ids[name] = (await store.add('shared', { text, embedding: random(), tags })).id;
    };
    await add('ada', 'Ada Lovelace wrote notes on the Analytical Engine.');
    await add('babbage', 'Charles Babbage designed the Analytical Engine in London.');
    await add('london', 'Ada Lovelace lived in London.');
    await add('secret', "Bob's secret: the Analytical Engine key is under the mat.", ['agent:bob', 'visibility:private']);
    await add('plain', 'Nothing to extract here.');
  }, 120_000);

  afterAll(async () => {
    await store?.close();
  });

  it('writes extractions in one go; an entity named twice is one row, counted per item', async () => {
    const job = (name: string) => ({ bank: 'shared', id: ids[name]!, text: '' });
    expect(await writeExtraction(store.db, job('ada'), { entities: [{ name: 'Ada Lovelace', type: 'person' }, { name: 'Analytical Engine', type: 'object' }], relations: [{ source: 'Ada Lovelace', target: 'Analytical Engine', type: 'wrote_about' }] }, 1)).toBe(true);
    await writeExtraction(store.db, job('babbage'), { entities: [{ name: 'charles babbage', type: 'person' }, { name: 'analytical  engine', type: 'object' }, { name: 'London', type: 'place' }], relations: [{ source: 'charles babbage', target: 'analytical  engine', type: 'designed' }, { source: 'analytical  engine', target: 'London', type: 'built_in' }] }, 2);
    await writeExtraction(store.db, job('london'), { entities: [{ name: 'Ada Lovelace', type: 'person' }, { name: 'London', type: 'place' }], relations: [{ source: 'Ada Lovelace', target: 'London', type: 'lived_in' }] }, 1);
    await writeExtraction(store.db, job('secret'), { entities: [{ name: 'Analytical Engine', type: 'object' }, { name: 'Bob', type: 'person' }], relations: [{ source: 'Bob', target: 'Analytical Engine', type: 'hides_key_of' }] }, 1);
    await markExtraction(store.db, job('plain'), 'failed', 3, 'the model said no');
    const { rows } = await store.db.query<{ name: string; mention_count: number }>("SELECT name, mention_count FROM memory_entities WHERE bank = 'shared' ORDER BY key");
    expect(rows).toEqual([
      { name: 'Ada Lovelace', mention_count: 2 }, { name: 'Analytical Engine', mention_count: 3 }, { name: 'Bob', mention_count: 1 },
      { name: 'charles babbage', mention_count: 1 }, { name: 'London', mention_count: 2 },
    ]);
    expect((await itemsToExtract(store.db, 100)).map((j) => j.id)).toEqual([ids.plain]);
    // An item that is gone is skipped, not an error.
    expect(await writeExtraction(store.db, { bank: 'shared', id: '00000000-0000-4000-8000-000000000000', text: '' }, { entities: [], relations: [] }, 1)).toBe(false);
  });

  it('answers the top entities by mentions, with the relations among them, counting only what the viewer may see', async () => {
    const anyone = (await subgraph(store.db, 'shared', ANYONE, top('entities', 'mentions')))!;
    expect(anyone.nodes.map((n) => [n.label, n.weight])).toEqual(expect.arrayContaining([['Analytical Engine', 2], ['Ada Lovelace', 2], ['London', 2], ['charles babbage', 1]]));
    expect(anyone.nodes).toHaveLength(4); // Bob is only in bob's private memory
    const name = new Map(anyone.nodes.map((n) => [n.id, n.label]));
    expect(anyone.edges.map((e) => `${name.get(e.source)} ${e.type} ${name.get(e.target)}`).sort()).toEqual([
      'Ada Lovelace lived_in London', 'Ada Lovelace wrote_about Analytical Engine', 'Analytical Engine built_in London', 'charles babbage designed Analytical Engine',
    ]);
    const bob = (await subgraph(store.db, 'shared', BOB, top('entities', 'mentions', 1)))!;
    expect(bob.nodes).toEqual([expect.objectContaining({ label: 'Analytical Engine', weight: 3, kind: 'entity', type: 'object' })]);
    expect(bob.truncated).toBe(true);
    const byDegree = (await subgraph(store.db, 'shared', ANYONE, top('entities', 'degree', 1)))!;
    expect(byDegree.nodes[0]!.label).toBe('Analytical Engine');
  });

  it('walks out from a node (ego), keeping the strongest neighbours, to depth 2', async () => {
    const all = (await subgraph(store.db, 'shared', ANYONE, top('entities', 'mentions')))!;
    const idOf = (label: string) => all.nodes.find((n) => n.label === label)!.id;
    const ego = (depth: number, topK: number) => subgraph(store.db, 'shared', ANYONE, { kind: 'entities', mode: 'ego', by: 'mentions', limit: 100, node: idOf('charles babbage'), depth, topK });
    expect((await ego(1, 10))!.nodes.map((n) => n.label)).toEqual(['charles babbage', 'Analytical Engine']);
    expect((await ego(2, 10))!.nodes.map((n) => n.label).sort()).toEqual(['Ada Lovelace', 'Analytical Engine', 'London', 'charles babbage']);
    expect((await ego(2, 1))!.nodes).toHaveLength(3);
    expect(await subgraph(store.db, 'shared', ANYONE, { kind: 'entities', mode: 'ego', by: 'mentions', limit: 100, node: '00000000-0000-4000-8000-000000000000', depth: 1, topK: 10 })).toBeNull();
  });

  it('links memories by the entities they share', async () => {
    const memories = (await subgraph(store.db, 'shared', ANYONE, top('memories', 'entities')))!;
    expect(memories.nodes.map((n) => n.id).sort()).toEqual([ids.ada, ids.babbage, ids.london, ids.plain].sort());
    const weight = (a: string, b: string) => memories.edges.find((e) => (e.source === ids[a] && e.target === ids[b]) || (e.source === ids[b] && e.target === ids[a]))?.weight;
    expect(weight('ada', 'babbage')).toBe(1);
    expect(weight('ada', 'london')).toBe(1);
    expect(weight('babbage', 'london')).toBe(1);
    expect(memories.edges).toHaveLength(3);
    const ego = (await subgraph(store.db, 'shared', BOB, { kind: 'memories', mode: 'ego', by: 'entities', limit: 100, node: ids.secret, depth: 1, topK: 10 }))!;
    expect(ego.nodes.map((n) => n.id).sort()).toEqual([ids.secret, ids.ada, ids.babbage].sort());
  });

  it("finds recall's related items: most shared first, never a seed, never another agent's private one", async () => {
    expect((await relatedItems(store.db, [ids.london!], ANYONE, 10)).map((r) => [r.id, r.shared])).toEqual(expect.arrayContaining([[ids.ada, 1], [ids.babbage, 1]]));
    const forAnyone = await relatedItems(store.db, [ids.ada!], ANYONE, 10);
    expect(forAnyone.map((r) => r.id).sort()).toEqual([ids.babbage, ids.london].sort());
    expect((await relatedItems(store.db, [ids.ada!], BOB, 10)).map((r) => r.id)).toContain(ids.secret);
    expect(forAnyone[0]).toMatchObject({ bank: 'shared', text: expect.any(String), tags: ['agent:anonymous'] });
  });

  it('deleting an item takes its mentions, relations and extraction row with it', async () => {
    await store.delete('shared', [ids.babbage!]);
    const count = async (table: string) => Number((await store.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE item_id = $1`, [ids.babbage])).rows[0]!.n);
    for (const table of ['memory_entity_mentions', 'memory_relations', 'memory_graph_extractions']) expect(await count(table)).toBe(0);
    const after = (await subgraph(store.db, 'shared', ANYONE, top('entities', 'mentions')))!;
    expect(after.nodes.map((n) => n.label)).not.toContain('charles babbage');
  });
});
