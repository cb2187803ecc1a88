// Graph extraction's wire types (docs/memory.md "Graph", docs/api.md "Memory
// graph"): the status, the PUT body and answer, the retry answer and the subgraph.
import { z } from 'zod';

export const GRAPH_TIMEOUT_MIN_S = 30;
export const GRAPH_TIMEOUT_MAX_S = 3600;
export const SLOT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** PUT /api/memory/graph: any subset, merged into [memory.graph]. Unknown fields are refused. */
export const MemoryGraphPutSchema = z.strictObject({
  enabled: z.boolean().optional(),
  extraction_slot: z.string().regex(SLOT_NAME_PATTERN, 'expected a slot name (lowercase letters, digits, "-" and "_", starting with a letter or digit, at most 32)').optional(),
  llm_timeout_s: z.int().min(GRAPH_TIMEOUT_MIN_S).max(GRAPH_TIMEOUT_MAX_S).optional(),
});

export interface MemoryGraphSettings { enabled: boolean; extraction_slot: string; llm_timeout_s: number }

export interface MemoryGraphStatus {
  enabled: boolean;
  extraction_slot: string;
  /** Deprecated mirror of the slot as a model name (`svc/<slot>`), kept for the original's clients. */
  route: string;
  /** Whether extraction_slot is an enabled llm slot now. */
  slot_resolves: boolean;
  available_slots: string[];
  /** Items waiting or being extracted now. */
  in_flight: number;
  builds_ok: number;
  errors: number;
  last_built_at: string | null;
  last_error: string | null;
  llm_timeout_s: number;
  /** The engine the graph is built by: svc itself on pgvector, the daemon on hindsight. */
  engine: string;
}

/** What a PUT did to the hindsight daemon's drop-in; on pgvector nothing applies (applicable false). */
export interface MemoryGraphPropagation {
  applicable: boolean;
  slot: string;
  model: string;
  timeout_s: number;
  drop_in: string | null;
  written: boolean;
  daemon_reloaded: boolean;
  restarted: boolean;
  error: string | null;
  /** Why nothing was propagated (applicable false). */
  note?: string;
}

export interface MemoryGraphPutAnswer extends MemoryGraphSettings {
  status: MemoryGraphStatus;
  propagation: MemoryGraphPropagation;
  changed: string[];
}

export interface MemoryGraphRetryAnswer { queued: number; skipped: number; banks: string[] }

export const SUBGRAPH_KINDS = ['memories', 'entities'] as const;
export const SUBGRAPH_MODES = ['top', 'ego'] as const;
export const SUBGRAPH_MAX_LIMIT = 500;
export const SUBGRAPH_MAX_DEPTH = 2;
/** How a top subgraph picks its nodes, per kind; the first is the default. */
export const SUBGRAPH_BY = { entities: ['mentions', 'degree', 'recent'], memories: ['entities', 'recent'] } as const;

export interface SubgraphNode {
  id: string;
  kind: 'entity' | 'memory';
  /** An entity's name, or the first 120 characters of a memory's text. */
  label: string;
  /** An entity's type, or a memory's type (world, experience, observation). */
  type: string;
  /** Entities: the visible items that mention it. Memories: the entities it mentions. */
  weight: number;
  timestamp: string;
}

export interface SubgraphEdge { source: string; target: string; type: string; weight: number }

export interface SubgraphAnswer {
  bank: string;
  kind: (typeof SUBGRAPH_KINDS)[number];
  mode: (typeof SUBGRAPH_MODES)[number];
  by: string;
  nodes: SubgraphNode[];
  edges: SubgraphEdge[];
  /** More nodes qualified than `limit` let in. */
  truncated: boolean;
}
