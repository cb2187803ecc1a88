// The seam between the memory service and an engine that is not svc's own SQL store: the
// Hindsight daemon (hindsight.ts, with its degraded mode in hindsight-engine.ts) and a mem0
// server (mem0.ts). The service keeps identity, banks, events and the recall pipeline
// (rerank, precedence, budget); an adapter stores, finds and deletes, and answers only with
// what the caller may see (another agent's private items never come back).
import type { ActivityInput } from '../../activity/store.js';
import type { EventInput } from '../../protocol/events.js';
import type { MemoryBankStats, MemoryBankView, MemoryItem } from '../../protocol/memory.js';
import type { MemoryIdentity } from '../identity.js';

/** One write, with the tags the gateway set (agent:<id>, visibility:private). */
export interface EngineAddItem {
  text: string;
  dataset?: string;
  tags: string[];
  metadata?: Record<string, unknown>;
  document_id?: string;
  agent: string;
}

export interface EngineSearch { query: string; limit: number; dataset?: string; tags?: string[]; before?: string; after?: string }
export interface EngineRecall { query: string; max_tokens: number; types?: readonly string[]; dataset?: string; tags?: string[]; tags_match?: 'any' | 'all' }

/** A bank of a daemon as GET /api/memory/banks shows it: the daemon keeps no dimension, name or config svc knows of. */
export const daemonBank = (id: string, items: number, createdAt = ''): MemoryBankView => ({
  id, dimension: null, items, created_at: createdAt, updated_at: createdAt, name: null, description: null, config: {},
});

/** One page of one bank; `next` is the bank's offset to go on from, null at its end. */
export interface EnginePage { items: MemoryItem[]; next: number | null }

/** The answer of a passthrough call, given to the client as it came. */
export interface PassthroughAnswer { status: number; body: unknown }

/** GET /api/memory/engine's fields an adapter knows. */
export interface EngineReport {
  reachable: boolean;
  version: string | null;
  features: { search: boolean; recall: boolean; rerank: boolean; graph: boolean };
  banks_total: number | null;
  /** hindsight: healthy, or degraded (writes kept in the outbox); pending: outbox rows. */
  state?: 'healthy' | 'degraded';
  pending?: number;
  error?: string;
}

/** POST /api/memory/promote (docs/api.md, "Memory"). */
export interface PromoteAnswer { promoted: boolean; changed: boolean; state?: string; detail?: string }

export interface MemoryEngineAdapter {
  readonly engine: 'hindsight' | 'mem0';
  add(bank: string, item: EngineAddItem): Promise<{ id: string; timestamp: string; operation_id?: string }>;
  /** Each bank's hits, best first, each scored (higher is better), visible to `who` only. */
  search(banks: readonly string[], q: EngineSearch, who: MemoryIdentity): Promise<MemoryItem[][]>;
  /** Each bank's recall candidates, before the service's rerank, precedence and budget. */
  recall(banks: readonly string[], q: EngineRecall, who: MemoryIdentity): Promise<MemoryItem[][]>;
  list(bank: string, q: { dataset?: string; offset: number; limit: number }, who: MemoryIdentity): Promise<EnginePage>;
  delete(bank: string, ids: readonly string[], who: MemoryIdentity): Promise<number>;
  banks(): Promise<MemoryBankView[]>;
  putBank(bank: string, body: Record<string, unknown>, method: 'PUT' | 'PATCH'): Promise<MemoryBankView>;
  deleteBank(bank: string): Promise<number>;
  stats(bank: string): Promise<MemoryBankStats>;
  /** The allowlisted per-bank passthrough (hindsight only; mem0 refuses it). */
  passthrough(method: string, bank: string, subpath: string, query: string, body: unknown): Promise<PassthroughAnswer>;
  report(): Promise<EngineReport>;
  /** Degraded mode only (hindsight): probe now, replay, promote. */
  promote(): Promise<PromoteAnswer>;
  close(): Promise<void>;
}

/** What an engine adapter reports through: events, activity rows, the log; and how often a degraded one probes again. */
export interface EngineDeps {
  publish: (event: EventInput) => void;
  record: (entry: ActivityInput) => void;
  log: (line: string) => void;
  reprobeIntervalS: () => number;
}
