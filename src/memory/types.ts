// The memory store's interface (store.ts implements it on Postgres with pgvector), for the
// memory service, routes and adapters above it.

export interface MemoryItemRow { id: string; bank: string; text: string; dataset: string | null; tags: string[]; metadata: Record<string, unknown>; source: string | null; type: string; timestamp: string; score?: number }
/** Who reads: rows tagged `privateTag` are theirs only when also tagged `ownTag` (a filter in SQL, so a limit is filled with visible rows). */
export interface MemoryViewer { privateTag: string; ownTag: string }
export interface MemoryAddItem { text: string; embedding: number[]; dataset?: string; tags?: string[]; metadata?: Record<string, unknown>; document_id?: string; type?: string; timestamp?: string }
export interface MemorySearchQuery { embedding: number[]; text: string; limit: number; dataset?: string; tags?: string[]; tagsMatch?: 'any' | 'all'; before?: string; after?: string; excludeTags?: string[]; viewer?: MemoryViewer }
import type { MemoryEngineState } from '../protocol/events.js';

/** `state`: the embedded process's (absent for a server); a stopped one is not started to answer. */
export interface MemoryEngineInfo { kind: 'embedded' | 'server'; reachable: boolean; version: string | null; pid: number | null; rss_bytes: number | null; state?: MemoryEngineState }

export interface MemoryStore {
  ensureBank(bank: string, dimension: number): Promise<void>;
  banks(): Promise<Array<{ id: string; dimension: number | null; items: number; created_at: string }>>;
  deleteBank(bank: string): Promise<number>;
  add(bank: string, item: MemoryAddItem): Promise<{ id: string; timestamp: string }>;
  search(bank: string, q: MemorySearchQuery): Promise<MemoryItemRow[]>;
  list(bank: string, q: { dataset?: string; offset: number; limit: number; viewer?: MemoryViewer }): Promise<MemoryItemRow[]>;
  /** Deletes the ids in `bank`; with a viewer, only rows that viewer may read (another agent's private row stays). */
  delete(bank: string, ids: string[], viewer?: MemoryViewer): Promise<number>;
  stats(bank: string): Promise<{ items: number; dimension: number | null; bytes: number }>;
  /** The rows with these ids the viewer may read (svc-memory's memory_history); optional for adapters. */
  get?(bank: string, ids: string[], viewer?: MemoryViewer): Promise<MemoryItemRow[]>;
  /** Adds and removes tags on the rows with these ids the viewer may read; the count changed. Optional for adapters. */
  retag?(bank: string, ids: string[], change: { add: string[]; remove: string[] }, viewer?: MemoryViewer): Promise<number>;
  engine(): Promise<MemoryEngineInfo>;
  close(): Promise<void>;
}
