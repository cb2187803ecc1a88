import { describe, expect, it } from 'vitest';
import { newItemId, newResponseId } from './ids.js';

describe('ids', () => {
  it('prefix 48 random hex digits with the kind, never repeating', () => {
    expect(newResponseId()).toMatch(/^resp_[0-9a-f]{48}$/);
    for (const prefix of ['msg', 'fc', 'fco', 'rs', 'call'] as const) expect(newItemId(prefix)).toMatch(new RegExp(`^${prefix}_[0-9a-f]{48}$`));
    expect(new Set(Array.from({ length: 100 }, newResponseId)).size).toBe(100);
  });
});
