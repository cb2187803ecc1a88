// The memory REST surface (docs/memory.md, docs/api.md "Memory"): the
// request bodies as zod schemas the routes validate with and the CLI builds from, and the
// wire types of the answers. Unknown fields are refused (strict objects): that is how a
// `source` field on add is rejected (the gateway sets where an item came from).
import { z } from 'zod';
import { nulFreeRecord, nulFreeString } from './no-nul.js';

/** The largest text of one item, in UTF-8 bytes. */
export const MEMORY_TEXT_MAX_BYTES = 64 * 1024;
/** An agent id (X-Svc-Agent); absent means `anonymous`. */
export const AGENT_ID_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
/** A bank id: a namespace with ':' mapped to '__' (private:hermes -> private__hermes). */
export const BANK_ID_PATTERN = /^[a-zA-Z0-9_-]{1,128}$/;
export const MEMORY_ITEM_TYPES = ['world', 'experience', 'observation'] as const;

const text = () => nulFreeString().min(1).refine((s) => Buffer.byteLength(s, 'utf8') <= MEMORY_TEXT_MAX_BYTES, { message: `expected at most ${MEMORY_TEXT_MAX_BYTES} bytes of UTF-8` });
const query = () => nulFreeString().min(1).max(8192);
const dataset = () => nulFreeString().min(1).max(256);
const tags = () => z.array(nulFreeString().min(1).max(256)).max(64);
const isoTime = () => z.iso.datetime({ offset: true });

export const MemoryAddRequestSchema = z.strictObject({
  text: text(),
  dataset: dataset().optional(),
  tags: tags().optional(),
  metadata: nulFreeRecord().optional(),
  document_id: nulFreeString().min(1).max(256).optional(),
});
export type MemoryAddRequest = z.output<typeof MemoryAddRequestSchema>;

export const MemorySearchRequestSchema = z.strictObject({
  query: query(),
  limit: z.int().min(1).max(500).default(10),
  dataset: dataset().optional(),
  tags: tags().optional(),
  before: isoTime().optional(),
  after: isoTime().optional(),
});
export type MemorySearchRequest = z.output<typeof MemorySearchRequestSchema>;

export const MemoryRecallRequestSchema = z.strictObject({
  query: query(),
  max_tokens: z.int().min(1).max(1_000_000).default(4096),
  types: z.array(z.enum(MEMORY_ITEM_TYPES)).min(1).optional(),
  dataset: dataset().optional(),
  tags: tags().optional(),
  tags_match: z.enum(['any', 'all']).optional(),
  /** Also items sharing graph entities with the top hits (docs/memory.md "Graph"); the answer lists them in graph_added. */
  graph: z.boolean().optional(),
});
export type MemoryRecallRequest = z.output<typeof MemoryRecallRequestSchema>;

/** `ids`, or a `dataset` (every item of it the caller may read), or both (those ids within it). */
export const MemoryDeleteRequestSchema = z.strictObject({
  ids: z.array(nulFreeString().min(1).max(128)).min(1).max(1000).optional(),
  dataset: dataset().optional(),
}).superRefine((body, context) => {
  if (body.ids === undefined && body.dataset === undefined) context.addIssue({ code: 'custom', path: ['ids'], message: 'expected ids, a dataset, or both' });
});
export type MemoryDeleteRequest = z.output<typeof MemoryDeleteRequestSchema>;

/** DELETE /api/memory/banks/<id>: the body form of the confirmation (or ?confirm=<id>). */
export const MemoryBankDeleteBodySchema = z.strictObject({ confirm: nulFreeString().min(1).max(128).optional() });

const bankFields = {
  name: nulFreeString().min(1).max(256).nullable().optional(),
  description: nulFreeString().max(4096).nullable().optional(),
  config: nulFreeRecord().optional(),
};

/** PUT /api/memory/banks/<id>: creates or replaces its fields; nothing is required; a dimension pins the bank's vectors. */
export const MemoryBankPutBodySchema = z.strictObject({ dimension: z.int().min(1).max(16000).optional(), ...bankFields });
export type MemoryBankPutBody = z.output<typeof MemoryBankPutBodySchema>;

/** PATCH /api/memory/banks/<id>: only the fields given change; `config` is merged key by key. */
export const MemoryBankPatchBodySchema = z.strictObject(bankFields);
export type MemoryBankPatchBody = z.output<typeof MemoryBankPatchBodySchema>;

/** POST /api/memory/banks/<id>/import?on_conflict=: what an item whose id is taken does. */
export const MEMORY_IMPORT_CONFLICTS = ['skip', 'replace', 'new-id'] as const;

/** One line of GET /api/memory/banks/<id>/export (application/x-ndjson), and of an import. */
export const MemoryExportLineSchema = z.strictObject({
  id: nulFreeString().min(1).max(128),
  text: text(),
  dataset: dataset().nullable().default(null),
  tags: tags().default([]),
  metadata: nulFreeRecord().default({}),
  document_id: nulFreeString().min(1).max(256).nullable().default(null),
  type: z.enum(MEMORY_ITEM_TYPES).default('world'),
  timestamp: isoTime(),
  embedding: z.array(z.number()).min(1).max(16000),
});
export type MemoryExportLine = z.output<typeof MemoryExportLineSchema>;

export const MEMORY_LIST_DEFAULT_LIMIT = 50;

export interface MemoryItem {
  id: string;
  text: string;
  timestamp: string;
  dataset: string | null;
  tags: string[];
  source: string | null;
  metadata: Record<string, unknown>;
  score: number | null;
  type: string;
  /** The bank it came from (svc's addition: recall and list span banks). */
  bank: string;
}

export interface MemoryAddAnswer { id: string; timestamp: string }
export interface MemoryItemsAnswer { items: MemoryItem[] }
export interface MemoryListAnswer { items: MemoryItem[]; next_cursor: string | null }
export interface MemoryDeleteAnswer { deleted: number }

export interface MemoryBankView {
  id: string; dimension: number | null; items: number; created_at: string;
  updated_at: string; name: string | null; description: string | null; config: Record<string, unknown>;
}
export interface MemoryDocumentView { document_id: string; items: number; first_at: string; last_at: string }
/** `graph_queued`: how many items the copy queued for graph extraction (absent while extraction is off). */
export interface MemoryImportAnswer { bank: string; added: number; replaced: number; skipped: number; on_conflict: (typeof MEMORY_IMPORT_CONFLICTS)[number]; graph_queued?: number }

/** A re-embedding of a bank with the current embedding model (POST /api/memory/banks/<id>/reembed). */
export interface MemoryReembedJob {
  id: string; bank: string; model: string; state: 'running' | 'done' | 'failed';
  total: number; done: number; from_dimension: number | null; to_dimension: number | null;
  started_at: string; finished_at: string | null; error: string | null;
}
export interface MemoryBankStats { id: string; items: number; dimension: number | null; bytes: number }

/** GET /api/memory/engine: never a 5xx; an engine that cannot be reached says so here. */
export interface MemoryEngineView {
  enabled: boolean;
  engine: string;
  /** embedded (the database process svc runs) or server ([memory].pgvector_url); null when not pgvector. */
  kind: 'embedded' | 'server' | null;
  reachable: boolean;
  version: string | null;
  pid: number | null;
  rss_bytes: number | null;
  features: { search: boolean; recall: boolean; rerank: boolean; graph: boolean };
  banks_total: number | null;
  error?: string;
  /** hindsight: `healthy`, or `degraded` (the daemon is down; writes wait in the outbox, `pending` of them); embedded: the process's state (stopped, starting, ready, …). */
  state?: string;
  /** embedded: whether its data directory was initialised; false: the first use runs initdb first (most of its wait). */
  initialised?: boolean;
  pending?: number;
}

/**
 * POST /api/memory/migrate/unify (docs/memory.md "Unifying banks"): copies the source banks'
 * items into the target bank. A dry-run (the default) answers the plan and writes nothing.
 */
export const MemoryUnifyRequestSchema = z.strictObject({
  sources: z.array(z.string().regex(BANK_ID_PATTERN)).min(1).max(64),
  target: z.string().regex(BANK_ID_PATTERN).default('shared'),
  apply: z.boolean().default(false),
  /** Tags every copied item gets, besides a private bank's identity tags. */
  add_tags: tags().default([]),
  on_conflict: z.enum(MEMORY_IMPORT_CONFLICTS).default('skip'),
  /** Leave items of type `observation` behind (they are derived, and the target may derive its own). */
  skip_observations: z.boolean().default(false),
});
export type MemoryUnifyRequest = z.output<typeof MemoryUnifyRequestSchema>;

/** One source bank of a unify: the plan (items, last activity, tags to add), and with `apply` what was done. */
export interface MemoryUnifySource {
  bank: string;
  items: number;
  observations: number;
  last_activity: string | null;
  dimension: number | null;
  tags_to_add: string[];
  added?: number;
  replaced?: number;
  skipped?: number;
}
export interface MemoryUnifyAnswer {
  target: string;
  dry_run: boolean;
  on_conflict: (typeof MEMORY_IMPORT_CONFLICTS)[number];
  skip_observations: boolean;
  target_dimension: number | null;
  sources: MemoryUnifySource[];
  totals: { items: number; added: number; replaced: number; skipped: number };
  /** How many items the copy queued for graph extraction (absent while extraction is off, or on a dry-run). */
  graph_queued?: number;
}

/**
 * POST /api/memory/migrate/hindsight (svc memory migrate --from hindsight; docs/memory.md
 * "Moving from Hindsight"): a Hindsight daemon's banks copied into the pgvector store.
 */
export const MemoryHindsightMigrateRequestSchema = z.strictObject({
  apply: z.boolean().default(false),
  /** Only this agent's items: its private bank, and items tagged agent:<id>. */
  agent: z.string().regex(AGENT_ID_PATTERN).optional(),
  dataset: dataset().optional(),
  /** Only items from this time on. */
  since: isoTime().optional(),
  /** Go on from the state file (banks done are passed over, a bank in progress goes on at its offset). */
  resume: z.boolean().default(false),
});
export type MemoryHindsightMigrateRequest = z.output<typeof MemoryHindsightMigrateRequestSchema>;

export interface MemoryHindsightMigrateBank { bank: string; items: number; added: number; skipped: number; offset: number; done: boolean }
export interface MemoryHindsightMigrateAnswer { from: 'hindsight'; to: 'pgvector'; dry_run: boolean; resumed: boolean; state_file: string; banks: MemoryHindsightMigrateBank[]; totals: { items: number; added: number; skipped: number }; graph_queued?: number }
