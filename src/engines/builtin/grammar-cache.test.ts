import { describe, expect, it } from 'vitest';
import { LruCache } from './grammar-cache.js';

describe('LruCache', () => {
  it('keeps at most its capacity, dropping the least recently used', () => {
    const cache = new LruCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
  });
});
