import { describe, expect, it } from 'vitest';
import { migrateDocument, schemaVersionOf, SVC_TOML_MIGRATIONS, type Migration } from './migrate.js';
import { LATEST_SCHEMA_VERSION, SvcTomlSchema } from './schema/svc-toml.js';

const v1 = () => ({
  memory: {
    engine: 'hindsight',
    embedding: { rerank_url: 'http://x:1', rerank_model: 'm' },
    graph: { enabled: true, model: 'svc/x', route: 'local', provider: 'svc', llm_timeout_s: 60 },
  },
  models: { pull_root: '/data/models', auto_scan_on_start: false },
  slots: { max_slots: 2 },
});

describe('schemaVersionOf', () => {
  it('reads [meta].schema_version, absent meaning 1', () => {
    expect(schemaVersionOf({})).toBe(1);
    expect(schemaVersionOf({ meta: {} })).toBe(1);
    expect(schemaVersionOf({ meta: { schema_version: 2 } })).toBe(2);
    expect(schemaVersionOf({ meta: { schema_version: 'two' } })).toBeUndefined();
    expect(schemaVersionOf({ meta: { schema_version: 1.5 } })).toBeUndefined();
  });
});

describe('migrateDocument v1 -> v2 -> v3', () => {
  it('is the built-in chain up to the latest version', () => {
    expect(LATEST_SCHEMA_VERSION).toBe(3);
    expect(SVC_TOML_MIGRATIONS.map((m) => m.from)).toEqual([1, 2]);
  });

  it('renames, converts and drops the legacy keys and stamps schema_version 3', () => {
    const input = v1();
    const before = structuredClone(input);
    const result = migrateDocument(input);
    expect(result.from).toBe(1);
    expect(result.to).toBe(3);
    expect(result.doc).toEqual({
      memory: {
        engine: 'hindsight',
        embedding: { rerank_gateway_url: 'http://x:1', rerank_model: 'm' },
        graph: { enabled: true, extraction_slot: 'x', llm_timeout_s: 60 },
      },
      models: { store: '/data/models', auto_scan_on_start: false },
      slots: { max_slots: 2 },
      meta: { schema_version: 3 },
    });
    expect(result.changes).toEqual(expect.arrayContaining([
      'memory.embedding.rerank_url -> memory.embedding.rerank_gateway_url',
      'memory.graph.model "svc/x" -> memory.graph.extraction_slot "x"',
      'memory.graph.route removed (no longer supported)',
      'memory.graph.provider removed (no longer supported)',
      'models.pull_root -> models.store',
    ]));
    // Pure: the input is untouched.
    expect(input).toEqual(before);
    // And the result is a valid current document.
    expect(SvcTomlSchema.safeParse(result.doc).success).toBe(true);
  });

  it('keeps other [meta] keys and an explicit schema_version 1', () => {
    const result = migrateDocument({ meta: { schema_version: 1, note: 'x' }, memory: { embedding: { rerank_url: 'http://a:2' } } });
    expect(result.doc.meta).toEqual({ schema_version: 3, note: 'x' });
    expect(result.doc.memory).toEqual({ embedding: { rerank_gateway_url: 'http://a:2' } });
  });

  it('does not overwrite a new key that is already set', () => {
    const result = migrateDocument({
      memory: { embedding: { rerank_url: 'http://old:1', rerank_gateway_url: 'http://new:1' }, graph: { model: 'svc/old', extraction_slot: 'new' } },
      models: { pull_root: '/old', store: '/new' },
    });
    expect(result.doc.memory).toEqual({ embedding: { rerank_gateway_url: 'http://new:1' }, graph: { extraction_slot: 'new' } });
    expect(result.doc.models).toEqual({ store: '/new' });
  });

  it('drops a graph model that does not name a local slot', () => {
    const result = migrateDocument({ memory: { graph: { model: 'openai/gpt-4o' } } });
    expect(result.doc.memory).toEqual({ graph: {} });
    expect(result.changes).toEqual(['memory.graph.model removed (no longer supported)']);
  });

  it('stamps a v1 document with nothing to change', () => {
    const result = migrateDocument({});
    expect(result).toEqual({ doc: { meta: { schema_version: 3 } }, from: 1, to: 3, changes: [] });
  });

  it('is idempotent: a v3 document is returned as it is', () => {
    const once = migrateDocument(v1());
    const twice = migrateDocument(once.doc);
    expect(twice.doc).toBe(once.doc);
    expect(twice.doc).toEqual(once.doc);
    expect(twice.changes).toEqual([]);
    expect(twice.from).toBe(3);
    expect(twice.to).toBe(3);
  });

  it('leaves a document of an unknown or newer version unchanged', () => {
    for (const doc of [{ meta: { schema_version: 'x' } }, { meta: { schema_version: 9 } }]) {
      const result = migrateDocument(doc);
      expect(result.doc).toBe(doc);
      expect(result.changes).toEqual([]);
    }
  });
});

describe('migrateDocument v2 -> v3: the update channel leaves [telemetry]', () => {
  it('moves [telemetry].channel to [updates].channel and keeps [telemetry].enabled', () => {
    const input = { meta: { schema_version: 2 }, telemetry: { enabled: true, channel: 'nightly' }, slots: { max_slots: 1 } };
    const before = structuredClone(input);
    const result = migrateDocument(input);
    expect(result).toEqual({
      doc: { meta: { schema_version: 3 }, telemetry: { enabled: true }, updates: { channel: 'nightly' }, slots: { max_slots: 1 } },
      from: 2,
      to: 3,
      changes: ['telemetry.channel -> updates.channel'],
    });
    expect(input).toEqual(before);
    expect(SvcTomlSchema.parse(result.doc).updates.channel).toBe('nightly');
  });

  it('drops a [telemetry] left empty, from a v1 file too', () => {
    const result = migrateDocument({ telemetry: { channel: 'nightly' } });
    expect(result.doc).toEqual({ updates: { channel: 'nightly' }, meta: { schema_version: 3 } });
    expect(result.changes).toEqual(['telemetry.channel -> updates.channel']);
  });

  it('keeps an [updates].channel that is already set (the API writes there) and removes the old key', () => {
    const result = migrateDocument({ meta: { schema_version: 2 }, telemetry: { channel: 'nightly' }, updates: { channel: 'stable' } });
    expect(result.doc).toEqual({ meta: { schema_version: 3 }, updates: { channel: 'stable' } });
    expect(result.changes).toEqual(['telemetry.channel removed (updates.channel is set)']);
  });

  it('changes nothing but the version without a [telemetry].channel, and leaves an [updates] that is not a table to the schema', () => {
    expect(migrateDocument({ meta: { schema_version: 2 }, telemetry: { enabled: false } })).toEqual({
      doc: { meta: { schema_version: 3 }, telemetry: { enabled: false } }, from: 2, to: 3, changes: [],
    });
    const odd = migrateDocument({ meta: { schema_version: 2 }, telemetry: { channel: 'nightly' }, updates: 'nightly' });
    expect(odd.doc).toEqual({ meta: { schema_version: 3 }, telemetry: { channel: 'nightly' }, updates: 'nightly' });
    expect(odd.changes).toEqual([]);
    expect(SvcTomlSchema.safeParse(odd.doc).success).toBe(false);
  });

  it('is idempotent', () => {
    const once = migrateDocument({ meta: { schema_version: 2 }, telemetry: { channel: 'nightly' } });
    const twice = migrateDocument(once.doc);
    expect(twice.doc).toBe(once.doc);
    expect(twice.changes).toEqual([]);
  });
});

describe('migrateDocument with an injected chain', () => {
  const step = (from: number, key: string): Migration => ({
    from,
    description: `add ${key}`,
    apply: (doc) => ({ doc: { ...doc, [key]: from }, changes: [`${from}->${from + 1}: ${key}`] }),
  });

  it('chains 1 -> 2 -> 3 in order', () => {
    const result = migrateDocument({ x: 1 }, [step(2, 'b'), step(1, 'a')], 3);
    expect(result.from).toBe(1);
    expect(result.to).toBe(3);
    expect(result.changes).toEqual(['1->2: a', '2->3: b']);
    expect(result.doc).toEqual({ x: 1, a: 1, b: 2, meta: { schema_version: 3 } });
  });

  it('starts at the document\'s own version', () => {
    const result = migrateDocument({ meta: { schema_version: 2 } }, [step(1, 'a'), step(2, 'b')], 3);
    expect(result.changes).toEqual(['2->3: b']);
    expect(result.doc).toEqual({ meta: { schema_version: 3 }, b: 2 });
  });

  it('throws when a step is missing', () => {
    expect(() => migrateDocument({}, [step(1, 'a')], 3)).toThrow('no migration from schema_version 2');
    expect(() => migrateDocument({}, [step(2, 'b')], 3)).toThrow('no migration from schema_version 1');
  });
});
