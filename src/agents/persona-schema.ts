// A persona file's schema (docs/agents.md, "Personas"), apart from personas.ts so the seeds (which are
// personas) and the functions that read and write them do not import each other.
import { z } from 'zod';

/** Also the traversal guard: the id becomes a file name. */
export const PERSONA_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const usd = () => z.number().min(0);
export const PersonaBudgetSchema = z.strictObject({
  daily_usd: usd().optional(), monthly_usd: usd().optional(), lifetime_usd: usd().optional(), per_call_max_usd: usd().optional(),
  hard_cap: z.boolean().default(true),
});
export const PersonaSchema = z.strictObject({
  id: z.string().regex(PERSONA_ID_PATTERN),
  display_name: z.string().min(1).max(120),
  summary: z.string().max(1000).default(''),
  prompt: z.strictObject({ system: z.string().default('') }).default({ system: '' }),
  tools: z.strictObject({ allowed: z.array(z.string()).default(['*']) }).default({ allowed: ['*'] }),
  memory: z.strictObject({ namespace: z.string().regex(/^(shared|private:[a-zA-Z0-9_-]{1,64})$/).default('shared') }).default({ namespace: 'shared' }),
  approval: z.strictObject({
    default_policy: z.enum(['ask', 'auto-approve', 'never']).default('ask'),
    auto_approve: z.array(z.string()).default([]),
    require_approval: z.array(z.string()).default([]),
  }).default({ default_policy: 'ask', auto_approve: [], require_approval: [] }),
  model: z.strictObject({ preferred_upstream: z.string().default('svc'), preferred_model: z.string().default('') }).default({ preferred_upstream: 'svc', preferred_model: '' }),
  budget: PersonaBudgetSchema.default({ hard_cap: true }),
});
export type Persona = z.output<typeof PersonaSchema>;
export type PersonaBudget = z.output<typeof PersonaBudgetSchema>;
