// POST /api/install/apply: what `svc setup` (and, later, the dashboard's first-run wizard)
// asks the gateway to do. Slots are created with POST /api/slots' body; a model that is
// not registered is written (the tiny demo models), or pulled when `pull` is true (the
// answer lists the jobs; call apply again once they are done: it is idempotent).
import { z } from 'zod';
import { CreateSlotRequestSchema } from './slot-requests.js';

/** A slot as POST /api/slots takes it, plus where to pull its model from when it is not registered. */
export const InstallSlotSchema = CreateSlotRequestSchema.extend({
  /** A pull ref (org/repo[:quant], a URL, a catalogue name); default: the model id itself (a catalogue name). */
  ref: z.string().min(1).nullish().transform((v) => v ?? undefined),
});

export const InstallApplyRequestSchema = z.strictObject({
  /** Where models go; the default is <state>/models. Persisted as [models].store when it differs. */
  // isAbsolute on POSIX, the hosts svc runs on; protocol is shared with the browser, which has no node:path.
  storage_dir: z.string().refine((path) => path.startsWith('/'), { message: 'expected an absolute path' }).nullish().transform((v) => v ?? undefined),
  slots: z.array(InstallSlotSchema).max(32).default([]),
  /** Pull missing catalogue models (default true); false leaves their slots out, reported. */
  pull: z.boolean().default(true),
});
export type InstallApplyRequest = z.input<typeof InstallApplyRequestSchema>;
export type InstallApplyInput = z.output<typeof InstallApplyRequestSchema>;

export interface InstallSlotOutcome {
  name: string;
  model: string;
  /** created now; exists: a slot file of that name was there and is left alone; pulling: its model is downloading; skipped: its model is missing and pull is off; failed. */
  status: 'created' | 'exists' | 'pulling' | 'skipped' | 'failed';
  message?: string;
  port?: number;
  job?: string;
}

export interface InstallApplyPayload {
  storage_dir: string;
  slots: InstallSlotOutcome[];
  /** Models written (the demo models) or registered by this apply. */
  models_added: string[];
  /** True once every slot asked for exists: the first-run sentinel is then written. */
  complete: boolean;
}
