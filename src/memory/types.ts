// The memory store's interface (store.ts implements it on Postgres with pgvector), for the
// memory service, routes and adapters above it.

export interface MemoryItemRow { id: string; bank: string; text: string; dataset: string | null; tags: string[]; metadata: Record<string, unknown>; source: string | null; type: string; timestamp: string; score?: number }
/** Who reads: rows tagged `privateTag` are theirs only when also tagged `ownTag` (a filter in SQL, so a limit is filled with visible rows). */
export interface MemoryViewer { privateTag: string; ownTag: string }
export interface MemoryAddItem { text: string; embedding: number[]; dataset?: string; tags?: string[]; metadata?: Record<string, unknown>; document_id?: string; type?: string; timestamp?: string }
export interface MemorySearchQuery { embedding: number[]; text: string; limit: number; dataset?: string; tags?: string[]; tagsMatch?: 'any' | 'all'; before?: string; after?: string; excludeTags?: string[]; viewer?: MemoryViewer }
import type { MemoryEngineState } from '../protocol/events.js';
import type { MemoryBankPutBody, MemoryBankView } from '../protocol/memory.js';

/** `state`: the embedded process's (absent for a server); a stopped one is not started to answer, and the version and banks_total are then the last seen. */
export interface MemoryEngineInfo { kind: 'embedded' | 'server'; reachable: boolean; version: string | null; pid: number | null; rss_bytes: number | null; banks_total: number | null; state?: MemoryEngineState }

export interface MemoryStore {
  ensureBank(bank: string, dimension: number): Promise<void>;
  banks(): Promise<MemoryBankRecord[]>;
  deleteBank(bank: string): Promise<number>;
  add(bank: string, item: MemoryAddItem): Promise<{ id: string; timestamp: string }>;
  search(bank: string, q: MemorySearchQuery): Promise<MemoryItemRow[]>;
  list(bank: string, q: { dataset?: string; offset: number; limit: number; viewer?: MemoryViewer }): Promise<MemoryItemRow[]>;
  /** Deletes the ids in `bank`; with a viewer, only rows that viewer may read (another agent's private row stays). */
  delete(bank: string, ids: string[], viewer?: MemoryViewer): Promise<number>;
  stats(bank: string): Promise<{ items: number; dimension: number | null; bytes: number }>;
  /** The bank's items, for the quota (quota.ts). */
  itemCount(bank: string): Promise<number>;
  /** How many banks there are, and whether `bank` is one. */
  bankCount(bank: string): Promise<{ banks: number; known: boolean }>;
  /** The rows with these ids the viewer may read (svc-memory's memory_history); optional for adapters. */
  get?(bank: string, ids: string[], viewer?: MemoryViewer): Promise<MemoryItemRow[]>;
  /** Adds and removes tags on the rows with these ids the viewer may read; the count changed. Optional for adapters. */
  retag?(bank: string, ids: string[], change: { add: string[]; remove: string[] }, viewer?: MemoryViewer): Promise<number>;
  engine(): Promise<MemoryEngineInfo>;
  close(): Promise<void>;
  /** Bank administration (PATCH, documents, tags, export/import, reembed); absent where an engine has none. */
  readonly admin?: MemoryBankAdmin;
  /** The embedded database process's resident memory (null when none runs); never starts it. */
  rssBytes?(): Promise<number | null>;
}

/** A bank's own fields (PUT replaces them, PATCH merges them; migration 3). */
export interface MemoryBankFields { name?: string | null; description?: string | null; config?: Record<string, unknown> }
export interface MemoryBankRecord { id: string; dimension: number | null; items: number; created_at: string; updated_at: string; name: string | null; description: string | null; config: Record<string, unknown> }
export interface MemoryDocumentRow { document_id: string; items: number; first_at: string; last_at: string }
/** One line of a bank's export (and of an import): an item with its embedding. */
export interface MemoryExportRow { id: string; text: string; dataset: string | null; tags: string[]; metadata: Record<string, unknown>; document_id: string | null; type: string; timestamp: string; embedding: number[] }
export type MemoryImportConflict = 'skip' | 'replace' | 'new-id';

/** The bank administration of a store (bank-sql.ts for the SQL store). */
export interface MemoryBankAdmin {
  bank(bank: string): Promise<MemoryBankRecord | null>;
  /** Creates or changes a bank's fields: `replace` sets all of them, `merge` only those given (config merged key by key). */
  putBank(bank: string, dimension: number | null, fields: MemoryBankFields, mode: 'replace' | 'merge'): Promise<void>;
  item(bank: string, id: string): Promise<MemoryItemRow | null>;
  documents(bank: string, page: { offset: number; limit: number }): Promise<MemoryDocumentRow[]>;
  document(bank: string, documentId: string): Promise<MemoryItemRow[]>;
  deleteDocument(bank: string, documentId: string): Promise<number>;
  tags(bank: string): Promise<Array<{ tag: string; count: number }>>;
  /** Items after `after` (an id, in id order), with their embeddings. */
  exportPage(bank: string, after: string | null, limit: number): Promise<MemoryExportRow[]>;
  importItem(bank: string, row: MemoryExportRow, onConflict: MemoryImportConflict): Promise<'added' | 'replaced' | 'skipped'>;
  /** Item and observation counts and the newest item's time (a unify plan). */
  activity(bank: string): Promise<{ items: number; observations: number; last_at: string | null }>;
  /** Deletes by dataset (every visible item in it, or only `ids` among them). */
  deleteInDataset(bank: string, dataset: string, ids: string[] | undefined, viewer?: MemoryViewer): Promise<number>;
  /** Items after `after` (an id) with their text, for a re-embedding. */
  textPage(bank: string, after: string | null, limit: number): Promise<Array<{ id: string; text: string }>>;
  setEmbeddings(bank: string, rows: ReadonlyArray<{ id: string; embedding: number[] }>): Promise<void>;
  /** The bank's vectors are now of this dimension (after a re-embedding), its HNSW index made. */
  setDimension(bank: string, dimension: number): Promise<void>;
}

/** What the bank helpers (bank-content, bank-transfer, reembed) use of MemoryBanks, which makes them: a type here keeps the modules apart. */
export interface BankAccess {
  store(): Promise<MemoryStore>;
  existing(id: string): Promise<MemoryBankView>;
  admin(): Promise<MemoryBankAdmin>;
  existingAdmin(id: string): Promise<MemoryBankAdmin>;
  put(id: string, body: MemoryBankPutBody, actor: string): Promise<MemoryBankView>;
}
