// The recall pipeline's own steps (docs/memory.md "Recall"): the banks' hits
// fused into one list, the visibility filter, the rerank applied, then precedence (observations
// and the shared bank first, then the higher score; a stable sort) and the greedy token budget
// (a text costs len(text)/4 tokens; an item that does not fit is skipped, later smaller ones
// may still fit). The model calls and the store are the service's (service.ts).
import type { MemoryItem } from '../protocol/memory.js';
import { SHARED_BANK, visibleTo } from './identity.js';
import type { RerankOutcome } from './model-calls.js';

export const DEFAULT_RECALL_TYPES = ['world', 'experience', 'observation'] as const;

/** Each bank's hits (best first, each with its fused score) into one list, best score first. */
export function fuseBanks(perBank: readonly MemoryItem[][]): MemoryItem[] {
  return perBank.flat().map((item, at) => ({ item, at })).sort((a, b) => (b.item.score ?? 0) - (a.item.score ?? 0) || a.at - b.at).map(({ item }) => item);
}

/** What `agent` may see of the items, of the asked types. */
export function filterVisible(items: readonly MemoryItem[], agent: string, types: readonly string[]): MemoryItem[] {
  return items.filter((item) => visibleTo(agent, item.tags) && types.includes(item.type));
}

/** The rerank's order applied (its relevance scores become the items' scores); a fallback keeps the fused order. */
export function applyRerank(items: readonly MemoryItem[], outcome: RerankOutcome): MemoryItem[] {
  if (!('order' in outcome)) return [...items];
  return outcome.order.map((index) => ({ ...items[index]!, score: outcome.scores.get(index) ?? items[index]!.score }));
}

const precedence = (item: MemoryItem) => (item.type === 'observation' || item.bank === SHARED_BANK ? 0 : 1);

/** Stable: within the same precedence the reranked (or fused) order of equal scores is kept. */
export function byPrecedence(items: readonly MemoryItem[]): MemoryItem[] {
  return items.map((item, at) => ({ item, at }))
    .sort((a, b) => precedence(a.item) - precedence(b.item) || (b.item.score ?? 0) - (a.item.score ?? 0) || a.at - b.at)
    .map(({ item }) => item);
}

export const tokensOf = (text: string) => Math.floor(text.length / 4);

/** The items, in order, whose texts fit in `maxTokens` together. */
export function withinBudget(items: readonly MemoryItem[], maxTokens: number): MemoryItem[] {
  const kept: MemoryItem[] = [];
  let used = 0;
  for (const item of items) {
    const cost = tokensOf(item.text);
    if (used + cost > maxTokens) continue;
    used += cost;
    kept.push(item);
  }
  return kept;
}
