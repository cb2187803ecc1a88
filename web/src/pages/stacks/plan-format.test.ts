import { describe, expect, it } from 'vitest';
import { formatValue, planLines, slotMatches } from './plan-format.js';

const change = (slot: string, extra: object = {}) => ({ slot, action: 'edit', runtime: 'restart', before_model: 'a', after_model: 'b', changed: true, fields: [], ...extra }) as never;

describe('plan format', () => {
  it('shows unset, empty strings and values', () => {
    expect(formatValue(null)).toBe('unset');
    expect(formatValue('')).toBe('""');
    expect(formatValue('cpu')).toBe('cpu');
    expect(formatValue(false)).toBe('false');
    expect(formatValue(8081)).toBe('8081');
  });

  it('lists what happens to each slot, leaving out the unchanged ones', () => {
    const lines = planLines({ changes: [change('a'), change('b', { action: 'unchanged', runtime: 'none', changed: false }), change('c', { action: 'create', runtime: 'load' })], unloads: ['old'] });
    expect(lines).toEqual(['a: edit the slot file, restart it', 'c: create the slot file, start it', 'old: unload it (its file is kept)']);
  });

  it('matches a slot only when it is enabled, ready and on the wanted model', () => {
    const slots = [
      { name: 'a', model: 'b', state: 'ready', enabled: true },
      { name: 'c', model: 'b', state: 'starting', enabled: true },
    ] as never;
    expect(slotMatches([change('a'), change('c'), change('d')], slots).map((m) => m.matches)).toEqual([true, false, false]);
  });
});
