// The store's interface as agreed with the store's side (src/memory/store.ts, branch mem-db),
// so the service builds before the two meet. Replaced by the store's own types at the merge.
export interface MemoryItemRow { id: string; bank: string; text: string; dataset: string | null; tags: string[]; metadata: Record<string, unknown>; source: string | null; type: string; timestamp: string; score?: number }
export interface MemoryStore {
  ensureBank(bank: string, dimension: number): Promise<void>;
  banks(): Promise<Array<{ id: string; dimension: number | null; items: number; created_at: string }>>;
  deleteBank(bank: string): Promise<number>;
  add(bank: string, item: { text: string; embedding: number[]; dataset?: string; tags?: string[]; metadata?: Record<string, unknown>; document_id?: string; type?: string; timestamp?: string }): Promise<{ id: string; timestamp: string }>;
  search(bank: string, q: { embedding: number[]; text: string; limit: number; dataset?: string; tags?: string[]; tagsMatch?: 'any' | 'all'; before?: string; after?: string; excludeTags?: string[] }): Promise<MemoryItemRow[]>;
  list(bank: string, q: { dataset?: string; offset: number; limit: number }): Promise<MemoryItemRow[]>;
  delete(bank: string, ids: string[]): Promise<number>;
  stats(bank: string): Promise<{ items: number; dimension: number | null; bytes: number }>;
  engine(): Promise<{ kind: 'embedded' | 'server'; reachable: boolean; version: string | null; pid: number | null; rss_bytes: number | null }>;
  close(): Promise<void>;
}
