// Settings under hostile changes: a change nested past any depth a request can have costs
// the merge bounded recursion.
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../protocol/input-bounds.js';
import { deepMerge, leafPaths } from './settings.js';

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
