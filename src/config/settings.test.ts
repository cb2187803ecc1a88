import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolvePaths, type SvcPaths } from './paths.js';
import { SvcTomlSchema } from './schema/svc-toml.js';
import { applyPlan, deepMerge, describeSettings, leafPaths, updateSvcToml, type SettingDescription } from './settings.js';

type Table = Record<string, unknown>;

// ---------------------------------------------------------------------------------------
// An independent walk of the zod schema: every leaf key with its own schema, so the test
// does not trust the JSON-Schema route describeSettings takes.

interface ZodLike {
  _zod: { def: { type: string; innerType?: ZodLike; shape?: Record<string, ZodLike>; out?: ZodLike; entries?: Record<string, unknown> } };
  minValue?: number | null;
  maxValue?: number | null;
  description?: string;
  meta(): Record<string, unknown> | undefined;
}

const WRAPPERS = ['default', 'prefault', 'optional', 'nullable'];

function unwrap(schema: ZodLike): ZodLike {
  let node = schema;
  for (let i = 0; i < 10; i++) {
    const def = node._zod.def;
    if (WRAPPERS.includes(def.type) && def.innerType) node = def.innerType;
    else if (def.type === 'pipe' && def.out) node = def.out;
    else break;
  }
  return node;
}

interface Leaf {
  key: string;
  schema: ZodLike;
  inner: ZodLike;
}

function schemaLeaves(schema: ZodLike, path: string[] = []): Leaf[] {
  const inner = unwrap(schema);
  if (inner._zod.def.type === 'object' && inner._zod.def.shape) {
    return Object.entries(inner._zod.def.shape).flatMap(([name, child]) => schemaLeaves(child, [...path, name]));
  }
  return [{ key: path.join('.'), schema, inner }];
}

const LEAVES = schemaLeaves(SvcTomlSchema as unknown as ZodLike);

function flatten(value: Table, prefix: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (child && typeof child === 'object' && !Array.isArray(child)) Object.assign(out, flatten(child as Table, [...prefix, key]));
    else out[[...prefix, key].join('.')] = child;
  }
  return out;
}

let home: string;
let paths: SvcPaths;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'svc-settings-'));
  paths = resolvePaths({ env: { SVC_HOME: home }, isRoot: false, homeDir: home, exists: () => false });
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

describe('deepMerge', () => {
  it('merges tables key by key and leaves the inputs alone', () => {
    const base = { slots: { max_slots: 1, idle_timeout_s: 5 }, telemetry: { enabled: true } };
    const patch = { slots: { idle_timeout_s: 9, publish_host: '0.0.0.0' } };
    const merged = deepMerge(base, patch);
    expect(merged).toEqual({ slots: { max_slots: 1, idle_timeout_s: 9, publish_host: '0.0.0.0' }, telemetry: { enabled: true } });
    expect(base).toEqual({ slots: { max_slots: 1, idle_timeout_s: 5 }, telemetry: { enabled: true } });
    expect(patch).toEqual({ slots: { idle_timeout_s: 9, publish_host: '0.0.0.0' } });
  });

  it('merges at every depth', () => {
    const merged = deepMerge({ memory: { engine: 'mem0', graph: { enabled: true, llm_timeout_s: 60 } } }, { memory: { graph: { llm_timeout_s: 90 } } });
    expect(merged).toEqual({ memory: { engine: 'mem0', graph: { enabled: true, llm_timeout_s: 90 } } });
  });

  it('replaces arrays rather than merging them', () => {
    const merged = deepMerge({ models: { file_extensions: ['.gguf', '.safetensors'], roots: ['/a', '/b'] } }, { models: { file_extensions: ['.bin'] } });
    expect(merged).toEqual({ models: { file_extensions: ['.bin'], roots: ['/a', '/b'] } });
  });

  it('replaces a scalar with a table and a table with a scalar', () => {
    expect(deepMerge({ a: 1 }, { a: { b: 2 } })).toEqual({ a: { b: 2 } });
    expect(deepMerge({ a: { b: 2 } }, { a: 3 })).toEqual({ a: 3 });
  });

  it('deletes a key set to null, leaving its siblings', () => {
    const merged = deepMerge({ slots: { idle_timeout_s: 5, max_slots: 1 } }, { slots: { idle_timeout_s: null } });
    expect(merged).toEqual({ slots: { max_slots: 1 } });
    expect('idle_timeout_s' in (merged.slots as Table)).toBe(false);
    expect(deepMerge({ slots: { max_slots: 1 }, api: { max_body_mb: 2 } }, { slots: null })).toEqual({ api: { max_body_mb: 2 } });
    expect(deepMerge({}, { slots: { gone: null } })).toEqual({ slots: {} });
  });

  it('spells activity.max_rows: null as false', () => {
    expect(deepMerge({ activity: { max_rows: 5000, enabled: true } }, { activity: { max_rows: null } })).toEqual({ activity: { max_rows: false, enabled: true } });
  });

  it('spells activity.max_rows: null as false also when [activity] did not exist', () => {
    expect(deepMerge({ slots: { max_slots: 1 } }, { activity: { max_rows: null } })).toEqual({ slots: { max_slots: 1 }, activity: { max_rows: false } });
  });

  it('deletes a max_rows key elsewhere, and deletes a null activity table', () => {
    expect(deepMerge({ other: { max_rows: 1 } }, { other: { max_rows: null } })).toEqual({ other: {} });
    expect(deepMerge({ activity: { max_rows: 1 } }, { activity: null })).toEqual({});
  });
});

describe('leafPaths', () => {
  it('lists the dotted path of every leaf', () => {
    expect(leafPaths({ slots: { max_slots: 1, idle_timeout_s: 2 }, telemetry: { enabled: true } })).toEqual(['slots.max_slots', 'slots.idle_timeout_s', 'telemetry.enabled']);
    expect(leafPaths({ memory: { graph: { extraction_slot: 'x' } } })).toEqual(['memory.graph.extraction_slot']);
  });

  it('treats arrays, nulls and empty tables as leaves', () => {
    expect(leafPaths({ models: { roots: ['/a', '/b'] }, activity: { max_rows: null }, api: {} })).toEqual(['models.roots', 'activity.max_rows', 'api']);
  });

  it('gives nothing for an empty change', () => {
    expect(leafPaths({})).toEqual([]);
  });
});

describe('describeSettings', () => {
  const descriptions = () => describeSettings(paths);
  const byKey = () => new Map(descriptions().map((d) => [d.key, d]));

  it('has exactly one entry for every leaf key of the schema', () => {
    const keys = descriptions().map((d) => d.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect([...keys].sort()).toEqual(LEAVES.map((l) => l.key).sort());
    // The parsed defaults hold every key except models.roots, whose default depends on the home.
    const defaultKeys = Object.keys(flatten(SvcTomlSchema.parse({}) as unknown as Table));
    expect([...keys].sort()).toEqual([...defaultKeys, 'models.roots'].sort());
    expect(keys.length).toBeGreaterThanOrEqual(27);
  });

  it('gives every key a description, a type, an apply class and the parsed default', () => {
    const defaults = flatten(SvcTomlSchema.parse({}) as unknown as Table);
    const described = byKey();
    for (const leaf of LEAVES) {
      const d = described.get(leaf.key)!;
      expect(d, leaf.key).toBeDefined();
      expect(d.description.length, leaf.key).toBeGreaterThan(0);
      expect(d.description, leaf.key).toBe(leaf.schema.description);
      expect(d.apply_class, leaf.key).toBe(leaf.schema.meta()?.apply);
      expect(d.type, leaf.key).toMatch(/^(integer|number|string|boolean|array<string>)$/);
      expect(d.section, leaf.key).toBe(leaf.key.split('.').slice(0, -1).join('.'));
      if (leaf.key === 'models.roots') expect(d.default).toEqual([paths.defaultModelsDir]);
      else expect(d.default, leaf.key).toEqual(defaults[leaf.key]);
    }
  });

  it('gives the bounds the schema has, and none it does not', () => {
    const described = byKey();
    for (const leaf of LEAVES) {
      const d = described.get(leaf.key)!;
      if (leaf.inner._zod.def.type !== 'number') {
        expect(d.minimum, leaf.key).toBeUndefined();
        expect(d.maximum, leaf.key).toBeUndefined();
        continue;
      }
      const min = leaf.inner.minValue;
      const max = leaf.inner.maxValue;
      if (typeof min === 'number' && min > Number.MIN_SAFE_INTEGER) {
        expect(d.minimum ?? d.exclusive_minimum, leaf.key).toBe(min);
      }
      if (typeof max === 'number' && Number.isFinite(max) && max < Number.MAX_SAFE_INTEGER) expect(d.maximum, leaf.key).toBe(max);
      else expect(d.maximum, leaf.key).toBeUndefined();
    }
  });

  it('describes the keys the spec names, with their bounds', () => {
    const d = byKey();
    const pick = (key: string) => {
      const { type, default: def, minimum, maximum, exclusive_minimum, enum: values, nullable } = d.get(key) as SettingDescription;
      return { type, default: def, minimum, maximum, exclusive_minimum, enum: values, nullable };
    };
    expect(pick('slots.idle_timeout_s')).toEqual({ type: 'integer', default: 300, minimum: 0, maximum: undefined, exclusive_minimum: undefined, enum: undefined, nullable: false });
    expect(pick('memory.embedding.rerank_read_timeout_s')).toMatchObject({ type: 'number', default: 8, minimum: 0.05, maximum: 60 });
    expect(pick('memory.embedding.rerank_connect_timeout_s')).toMatchObject({ type: 'number', default: 1, minimum: 0.05, maximum: 10 });
    expect(pick('memory.graph.llm_timeout_s')).toMatchObject({ type: 'integer', default: 300, minimum: 30, maximum: 3600 });
    expect(pick('dispatcher.prefetch_timeout_s')).toEqual({ type: 'number', default: 8, minimum: undefined, maximum: undefined, exclusive_minimum: 0, enum: undefined, nullable: false });
    expect(pick('dispatcher.prefetch_parallel_cap')).toMatchObject({ type: 'integer', default: 4, minimum: 1 });
    expect(pick('updates.channel')).toMatchObject({ type: 'string', default: 'stable', enum: ['stable', 'nightly'] });
    expect(pick('memory.engine')).toMatchObject({ type: 'string', default: 'hindsight', enum: ['cognee', 'hindsight', 'mem0', 'pgvector'] });
    expect(pick('activity.max_rows')).toMatchObject({ type: 'integer', default: 50000, minimum: 100, nullable: true });
    expect(pick('activity.retention_days')).toMatchObject({ type: 'integer', default: 30, minimum: 1 });
    expect(pick('slots.port_range_end')).toMatchObject({ type: 'integer', default: 8099, minimum: 8081, maximum: 8187 });
    expect(pick('meta.schema_version')).toMatchObject({ type: 'integer', default: 1, minimum: 1 });
    expect(pick('models.roots')).toMatchObject({ type: 'array<string>' });
    expect(pick('models.file_extensions')).toMatchObject({ type: 'array<string>', default: ['.gguf', '.safetensors'] });
    expect(pick('telemetry.enabled')).toMatchObject({ type: 'boolean', default: false });
  });

  it('gives every enum key its values', () => {
    const described = byKey();
    for (const leaf of LEAVES.filter((l) => l.inner._zod.def.type === 'enum')) {
      expect(described.get(leaf.key)!.enum, leaf.key).toEqual(Object.values(leaf.inner._zod.def.entries ?? {}));
    }
  });
});

describe('applyPlan', () => {
  it('groups every key by how it applies', () => {
    const descriptions = describeSettings(paths);
    const plan = applyPlan(descriptions);
    expect(Object.keys(plan.keys).sort()).toEqual(descriptions.map((d) => d.key).sort());
    const grouped = [...plan.live, ...plan.manual, ...Object.values(plan.restart).flat()];
    expect(grouped.sort()).toEqual(descriptions.map((d) => d.key).sort());
    expect(plan.manual).toEqual(['meta.schema_version']);
    expect(plan.live).toContain('slots.idle_timeout_s');
    expect(plan.live).not.toContain('slots.publish_host');
    expect(plan.restart.slots).toEqual(expect.arrayContaining(['slots.publish_host', 'models.store']));
    expect(plan.restart['svc-api']).toEqual(expect.arrayContaining(['models.roots', 'api.max_body_mb']));
    expect(plan.restart['svc-memory']).toEqual(expect.arrayContaining(['memory.engine', 'memory.graph.llm_timeout_s']));
    for (const [service, keys] of Object.entries(plan.restart)) {
      for (const key of keys) expect(plan.keys[key]).toBe(`restart:${service}`);
    }
    for (const key of plan.live) expect(plan.keys[key]).toBe('live');
  });

  it('limits the plan to the keys asked for, a section meaning its keys', () => {
    const descriptions = describeSettings(paths);
    const plan = applyPlan(descriptions, ['memory.graph', 'slots.publish_host']);
    expect(plan.keys).toEqual({
      'memory.graph.enabled': 'live',
      'memory.graph.extraction_slot': 'live',
      'memory.graph.llm_timeout_s': 'restart:svc-memory',
      'slots.publish_host': 'restart:slots',
    });
    expect(plan.live).toEqual(['memory.graph.enabled', 'memory.graph.extraction_slot']);
    expect(plan.restart).toEqual({ 'svc-memory': ['memory.graph.llm_timeout_s'], slots: ['slots.publish_host'] });
    expect(plan.manual).toEqual([]);
    // A prefix match is by whole segments: "slots.port" names no key.
    expect(applyPlan(descriptions, ['slots.port']).keys).toEqual({});
  });
});

describe('updateSvcToml', () => {
  const writeToml = (text: string) => {
    mkdirSync(paths.configRoot, { recursive: true });
    writeFileSync(paths.svcToml, text);
  };
  const ORIGINAL = '# my settings\n[slots]\nidle_timeout_s = 120\nmax_slots = 2\nfuture_option = "kept"\n\n[custom]\nanswer = 42\n';

  it('rejects an invalid value naming its path and leaves the file byte-for-byte unchanged', async () => {
    writeToml(ORIGINAL);
    const before = readFileSync(paths.svcToml);
    const result = await updateSvcToml(paths, { slots: { idle_timeout_s: -1 } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([{ file: 'svc.toml', path: 'slots.idle_timeout_s', message: 'expected >= 0; got -1', severity: 'error' }]);
    expect(Buffer.compare(readFileSync(paths.svcToml), before)).toBe(0);
    expect(readdirSync(paths.configRoot)).toEqual(['svc.toml']);
  });

  it('rejects a change that breaks a cross-field rule', async () => {
    writeToml(ORIGINAL);
    const before = readFileSync(paths.svcToml);
    const result = await updateSvcToml(paths, { slots: { port_range_start: 8090, port_range_end: 8085 } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.path)).toEqual(['slots.port_range_end']);
    expect(Buffer.compare(readFileSync(paths.svcToml), before)).toBe(0);
  });

  it('treats an unknown key in the change as an error', async () => {
    writeToml(ORIGINAL);
    const before = readFileSync(paths.svcToml);
    const result = await updateSvcToml(paths, { slots: { idle_timeout: 10 } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({ file: 'svc.toml', path: 'slots.idle_timeout', severity: 'error' });
    expect(result.problems[0]!.message).toContain('did you mean "idle_timeout_s"');
    expect(Buffer.compare(readFileSync(paths.svcToml), before)).toBe(0);

    const section = await updateSvcToml(paths, { nonsense: { a: 1 } });
    expect(section.ok).toBe(false);
    expect(Buffer.compare(readFileSync(paths.svcToml), before)).toBe(0);
  });

  it('writes a valid change and keeps unrelated keys and unknown keys already in the file', async () => {
    writeToml(ORIGINAL);
    chmodSync(paths.svcToml, 0o640);
    const result = await updateSvcToml(paths, { slots: { idle_timeout_s: 30 }, updates: { channel: 'nightly' } });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.changed).toEqual(['slots.idle_timeout_s', 'updates.channel']);
    expect(result.before.slots.idle_timeout_s).toBe(120);
    expect(result.after.slots.idle_timeout_s).toBe(30);
    expect(result.after.slots.max_slots).toBe(2);
    expect(result.after.updates.channel).toBe('nightly');
    // The file's own unknown keys are warnings, not a reason to refuse.
    expect(result.warnings.map((w) => `${w.severity} ${w.path}`).sort()).toEqual(['warning custom', 'warning slots.future_option']);
    const onDisk = parse(readFileSync(paths.svcToml, 'utf8'));
    expect(onDisk).toEqual({
      slots: { idle_timeout_s: 30, max_slots: 2, future_option: 'kept' },
      custom: { answer: 42 },
      updates: { channel: 'nightly' },
    });
    expect(statSync(paths.svcToml).mode & 0o777).toBe(0o640);
    expect(readdirSync(paths.configRoot)).toEqual(['svc.toml']);
  });

  it('creates svc.toml when there is none', async () => {
    expect(existsSync(paths.svcToml)).toBe(false);
    const result = await updateSvcToml(paths, { slots: { max_slots: 3 } });
    expect(result.ok).toBe(true);
    expect(parse(readFileSync(paths.svcToml, 'utf8'))).toEqual({ slots: { max_slots: 3 } });
  });

  it('removes a key set to null and writes max_rows: null as false', async () => {
    writeToml('[slots]\nidle_timeout_s = 120\n[activity]\nmax_rows = 1000\n');
    const result = await updateSvcToml(paths, { slots: { idle_timeout_s: null }, activity: { max_rows: null } });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.after.slots.idle_timeout_s).toBe(300);
    expect(result.after.activity.max_rows).toBeNull();
    // The emptied [slots] table is dropped, not left as a bare header.
    expect(parse(readFileSync(paths.svcToml, 'utf8'))).toEqual({ activity: { max_rows: false } });
    expect(readFileSync(paths.svcToml, 'utf8')).not.toMatch(/\[slots\]/);
  });

  it('refuses to touch a file that is not valid TOML', async () => {
    writeToml('[slots\nbroken = \n');
    const before = readFileSync(paths.svcToml);
    const result = await updateSvcToml(paths, { slots: { max_slots: 1 } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems[0]!.message).toMatch(/^not valid TOML: line 1/);
    expect(Buffer.compare(readFileSync(paths.svcToml), before)).toBe(0);
  });

  it('honours the extra rules of its caller', async () => {
    writeToml(ORIGINAL);
    const before = readFileSync(paths.svcToml);
    const seen: unknown[] = [];
    const rule = { file: 'svc.toml', path: 'memory.graph.extraction_slot', message: 'no such slot', severity: 'error' as const };
    const result = await updateSvcToml(paths, { memory: { graph: { extraction_slot: 'nope' } } }, (next) => {
      seen.push(next);
      return [rule];
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ slots: { idle_timeout_s: 120 }, memory: { graph: { extraction_slot: 'nope' } } });
    expect(result).toEqual({ ok: false, problems: [rule] });
    expect(Buffer.compare(readFileSync(paths.svcToml), before)).toBe(0);
  });

  it('reports the extra rules alongside schema errors in one pass', async () => {
    writeToml(ORIGINAL);
    const rule = { file: 'svc.toml', path: 'memory.graph.extraction_slot', message: 'no such slot', severity: 'error' as const };
    const result = await updateSvcToml(paths, { slots: { idle_timeout_s: -1 }, memory: { graph: { extraction_slot: 'nope' } } }, () => [rule]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.path).sort()).toEqual(['memory.graph.extraction_slot', 'slots.idle_timeout_s']);
  });

  it('saves when the extra rules only warn', async () => {
    writeToml(ORIGINAL);
    const result = await updateSvcToml(paths, { slots: { max_slots: 5 } }, () => [{ file: 'svc.toml', path: 'slots.max_slots', message: 'just so you know', severity: 'warning' }]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.warnings.map((w) => w.message)).toContain('just so you know');
    expect(parse(readFileSync(paths.svcToml, 'utf8'))).toMatchObject({ slots: { max_slots: 5 } });
  });
});
