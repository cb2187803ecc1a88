// Settings under hostile changes: a change nested past any depth a request can have, and one
// with tens of thousands of unknown keys, cost the merge and the validation linear work, and
// every unknown key is still an error.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../protocol/input-bounds.js';
import { resolvePaths, type SvcPaths } from './paths.js';
import { deepMerge, leafPaths, overlapsAny, updateSvcToml } from './settings.js';

type Table = Record<string, unknown>;
const nested = (depth: number): Table => {
  let value: Table = { leaf: null };
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

describe('deepMerge and leafPaths past the depth a body may have', () => {
  it('stop recursing there instead of overflowing the stack', () => {
    const deep = nested(100_000);
    expect(() => deepMerge({}, deep)).not.toThrow();
    const paths = leafPaths(deep);
    expect(paths).toHaveLength(1);
    expect(paths[0]!.split('.')).toHaveLength(MAX_JSON_DEPTH);
  });

  it('still merge (and apply nulls) at every depth a body can have', () => {
    const merged = deepMerge({ a: { a: { keep: 1, gone: 2 } } }, { a: { a: { gone: null } } });
    expect(merged).toEqual({ a: { a: { keep: 1 } } });
  });
});

describe('overlapsAny', () => {
  const old = (touched: string[]) => (path: string) => touched.some((k) => path === k || path.startsWith(`${k}.`) || k.startsWith(`${path}.`));

  it('answers as the pairwise test it replaced: the path itself, under one, or above one', () => {
    const touched = ['slots.idle_timeout_s', 'memory.graph.enabled', 'api', 'a.b.c'];
    const paths = ['slots.idle_timeout_s', 'slots', 'slots.max_slots', 'memory', 'memory.graph', 'memory.graph.enabled.x', 'memory.engine', 'api.port', 'apis', 'a', 'a.b', 'a.bc', 'b', ''];
    const test = overlapsAny(touched);
    expect(paths.map(test)).toEqual(paths.map(old(touched)));
  });
});

describe('updateSvcToml with 40,000 unknown keys', () => {
  let home: string;
  let paths: SvcPaths;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'svc-settings-bounds-'));
    paths = resolvePaths({ env: { SVC_HOME: home }, isRoot: false, homeDir: home, exists: () => false });
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('reports each of them as an error', async () => {
    const patch = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`unknown_${i}`, i]));
    const result = await updateSvcToml(paths, patch);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(40_000);
    expect(result.problems.every((p) => p.severity === 'error' && p.message === 'unknown key')).toBe(true);
  });
});
