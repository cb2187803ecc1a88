// The chat settings as typed (strings in inputs) → the request's fields, checked with zod as
// the user types. /v1 bodies are the engine's, so svc has no schema of its own for them;
// these are OpenAI's bounds for temperature and a positive whole max_tokens.
import { z } from 'zod';
import { problemsOfIssues, type Problems } from '../../field-problems.js';

export const chatParamsSchema = z.object({
  temperature: z.number({ error: 'a number' }).min(0, 'at least 0').max(2, 'at most 2').optional(),
  max_tokens: z.number({ error: 'a whole number' }).int('a whole number').min(1, 'at least 1').optional(),
});


export interface ChatSettingsInput {
  system: string;
  temperature: string;
  maxTokens: string;
  /** More request fields as a JSON object (top_p, seed, ignore_eos, …); blank for none. */
  extra: string;
}

/** The extra fields, or why they are not a JSON object. */
function readExtra(text: string): { extra: Record<string, unknown> } | { problem: string } {
  if (text.trim() === '') return { extra: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { extra: value as Record<string, unknown> };
  } catch {
    // Not JSON: the same problem as a JSON value that is not an object.
  }
  return { problem: 'a JSON object, e.g. {"top_p": 0.9, "seed": 1}' };
}

/** Blank means "the engine's default": the field is left out of the request. */
const numberOrNothing = (text: string): number | undefined => (text.trim() === '' ? undefined : Number(text));

/**
 * The request fields (the extra ones first, so temperature and max tokens as typed win), or
 * the problems by field path (temperature, max_tokens, extra).
 */
export function readChatParams(input: ChatSettingsInput): { params: Record<string, unknown>; problems: Problems } {
  const raw = { temperature: numberOrNothing(input.temperature), max_tokens: numberOrNothing(input.maxTokens) };
  const parsed = chatParamsSchema.safeParse(raw);
  const extra = readExtra(input.extra);
  const problems: Problems = parsed.success ? {} : problemsOfIssues(parsed.error.issues);
  if ('problem' in extra) problems.extra = extra.problem;
  if (!parsed.success || 'problem' in extra) return { params: {}, problems };
  const given = Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined));
  return { params: { ...extra.extra, ...given }, problems: {} };
}
