// Compiled grammars, kept per engine by their GBNF text: a client sends the same schema (or
// the same tools) with every request, and llama.cpp's grammar parse is not free. A small
// LRU: the few dozen schemas a slot's clients use stay, a client sending endless new ones
// cannot grow the engine's memory.
import type { Llama, LlamaGrammar } from 'node-llama-cpp';

export const GRAMMAR_CACHE_SIZE = 32;

/** Least recently used first: Map keeps insertion order, and a hit re-inserts its key. */
export class LruCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

const caches = new WeakMap<Llama, LruCache<Promise<LlamaGrammar>>>();

/** The grammar for `gbnf` (root rule `root`), compiled once per engine while it stays in use. */
export function compiledGrammar(llama: Llama, gbnf: string): Promise<LlamaGrammar> {
  let cache = caches.get(llama);
  if (!cache) caches.set(llama, (cache = new LruCache(GRAMMAR_CACHE_SIZE)));
  const cached = cache.get(gbnf);
  if (cached) return cached;
  const compiling = llama.createGrammar({ grammar: gbnf });
  cache.set(gbnf, compiling);
  // A grammar llama.cpp refuses is not kept: the next request gets the same error, not a stale promise.
  compiling.catch(() => cache.delete(gbnf));
  return compiling;
}
