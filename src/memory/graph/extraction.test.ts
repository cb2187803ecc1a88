import { describe, expect, it } from 'vitest';
import { entityKey, normaliseExtraction } from './extraction.js';

describe('normaliseExtraction', () => {
  it('trims, de-duplicates by name, maps an unknown type to other, and keeps relations between listed entities', () => {
    const out = normaliseExtraction({
      entities: [{ name: '  Ada  Lovelace ', type: 'person' }, { name: 'ada lovelace', type: 'person' }, { name: 'London', type: 'city' }, { name: '', type: 'place' }],
      relations: [{ source: 'Ada Lovelace', target: 'london', type: 'Lived In' }, { source: 'Ada Lovelace', target: 'london', type: 'lived in' }],
    });
    expect(out.entities).toEqual([{ name: 'Ada Lovelace', type: 'person' }, { name: 'London', type: 'other' }]);
    expect(out.relations).toEqual([{ source: 'Ada Lovelace', target: 'London', type: 'lived_in' }]);
  });

  it('a relation to an entity it did not list adds that entity, of type other', () => {
    const out = normaliseExtraction({ entities: [], relations: [{ source: 'Babbage', target: 'Analytical Engine', type: 'designed' }] });
    expect(out.entities).toEqual([{ name: 'Babbage', type: 'other' }, { name: 'Analytical Engine', type: 'other' }]);
    expect(out.relations).toHaveLength(1);
  });

  it('control characters become spaces; SQL metacharacters stay as they are', () => {
    const out = normaliseExtraction({ entities: [{ name: "O'Brien\n\t; DROP TABLE x; --", type: 'person' }], relations: [] });
    expect(out.entities[0]!.name).toBe("O'Brien ; DROP TABLE x; --");
  });

  it('refuses an answer without the two arrays', () => {
    expect(() => normaliseExtraction({ entities: [] })).toThrow(/entities and relations/);
    expect(() => normaliseExtraction(null)).toThrow();
  });

  it('keys an entity by its name lower-cased with its spaces collapsed', () => {
    expect(entityKey(' Grace   HOPPER ')).toBe('grace hopper');
  });
});
