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
/** POST /api/stacks/import: an envelope as GET /api/stacks/<slug>/export gives it, and optionally another slug. */
export const ImportStackRequestSchema = z.strictObject({ envelope: z.unknown(), slug: slug().optional() });

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
