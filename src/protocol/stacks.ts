// Wire shapes of /api/stacks (docs/api.md, "Stacks"), shared by the server and the CLI.
import { z } from 'zod';
import { SLOT_NAME_PATTERN, SLOT_NAME_RULE } from './vocabulary.js';

export const STACK_ENVELOPE_KIND = 'svc.stack';
export const STACK_ENVELOPE_VERSION = 1;

const slug = () => z.string().regex(SLOT_NAME_PATTERN, { message: `expected a stack slug: ${SLOT_NAME_RULE}` });

/** POST /api/stacks: a slug and the stack (its rows are checked against stacks.toml's schema). */
export const CreateStackRequestSchema = z.looseObject({ slug: slug(), name: z.string().min(1) });
/** POST /api/stacks/snapshot: the live slots as a new stack. */
export const SnapshotStackRequestSchema = z.strictObject({ slug: slug(), name: z.string().min(1).optional(), description: z.string().optional() });
/**
 * POST /api/stacks/import: an envelope as GET /api/stacks/<slug>/export gives it, and optionally
 * another slug. The route also takes the envelope itself as the body (server/routes/stack-import-request.ts).
 */
export const ImportStackRequestSchema = z.strictObject({ envelope: z.unknown(), slug: slug().optional() });
export type ImportStackRequest = z.output<typeof ImportStackRequestSchema>;

export interface StackPayload {
  slug: string;
  seed: boolean;
  name: string;
  description: string;
  author: string;
  icon: string;
  tags: string[];
  slots: Array<Record<string, unknown>>;
}

/** GET /api/stacks/<slug>/export: the portable envelope POST /api/stacks/import takes back. */
export interface StackEnvelopePayload {
  kind: typeof STACK_ENVELOPE_KIND;
  schema_version: number;
  svc_version: string;
  exported_at: string;
  /** "sha256:<hex>" over the canonical JSON (keys sorted) of `stack`. */
  checksum: string;
  /** The stack with its slug, the user `profiles` its rows name and its `models`: what the checksum covers. */
  stack: Record<string, unknown>;
}

export interface StackModelReport {
  id: string;
  /** present: in the registry with its file; pullable: a Hugging Face repo is known; unresolvable: neither. */
  status: 'present' | 'pullable' | 'unresolvable';
}

export interface StackImportPayload {
  stack: StackPayload;
  /** Profiles the envelope carried that were added (those with a local name were kept as they are). */
  profiles_added: string[];
  profiles_kept: string[];
  models: StackModelReport[];
}

/** POST /api/stacks/<slug>/apply?dry_run=true|false. */
export interface StackGuardProblem {
  slot: string;
  /** Which guard refused: device_profile, npu_exclusivity, default_unique, port, model, config. */
  guard: 'device_profile' | 'npu_exclusivity' | 'default_unique' | 'port' | 'model' | 'config';
  message: string;
}

/** A model a stack names that this host can neither find nor pull: what a dry run says first. */
export interface StackUnresolvableModel {
  model: string;
  /** The slots (rows) that name it. */
  slots: string[];
  /** One line: what is missing and what the user can do. */
  message: string;
}

export interface StackSlotPlan {
  slot: string;
  /** What happens to the slot file. */
  action: 'create' | 'edit' | 'unchanged';
  /** What the runtime then does: start it, swap its model, restart it (launch fields changed), nothing. */
  runtime: 'load' | 'swap' | 'restart' | 'none';
  before_model: string | null;
  after_model: string;
  changed: boolean;
  fields: Array<{ key: string; before: unknown; after: unknown }>;
  /** A child row's slot: the capability it serves and its parent row. */
  capability?: string;
  parent?: string;
}

export interface StackMemoryEstimate {
  /** The named slots' estimated need (weights + KV cache + overhead; the pull fit check's estimate). */
  needed_mb: number;
  ram_available_mb: number;
  vram_mb: number;
  budget_mb: number;
  fits: boolean;
  /** Models whose size is not known (not in the registry): not counted. */
  unknown: string[];
}

export interface StackSlotResult {
  slot: string;
  /** What convergence did: load, swap, restart, unload, none. */
  runtime: 'load' | 'swap' | 'restart' | 'unload' | 'none';
  ok: boolean;
  state: string;
  ms: number;
  error?: { code: string; message: string };
}

export interface StackApplyPayload {
  stack: string;
  dry_run: boolean;
  /** Only on a dry run that names models this host cannot resolve: each, before the plan (such an apply is refused). */
  unresolvable?: StackUnresolvableModel[];
  summary: string;
  changes: StackSlotPlan[];
  creates: string[];
  unloads: string[];
  models: StackModelReport[];
  memory: StackMemoryEstimate;
  /** Only on a dry run whose guards would refuse the apply: each problem (a real apply answers 400/409 with them). */
  problems?: StackGuardProblem[];
  /** Only on a real apply: what convergence did per slot, the active record and the time taken. */
  results?: StackSlotResult[];
  active?: { stack: string; hash: string; applied_at: string };
  commit_ms?: number;
  converge_ms?: number;
}

export interface StackActivePayload {
  /** none: no stack applied; clean: the slot files are as the apply left them; modified: they changed since. */
  status: 'none' | 'clean' | 'modified';
  stack: string | null;
  hash: string | null;
  current_hash: string | null;
  applied_at: string | null;
  /** Slots whose stack-managed fields differ from the apply (or that were added or removed). */
  drifted: string[];
}
