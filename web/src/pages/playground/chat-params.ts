// The chat settings as typed (strings in inputs) → the request's fields, checked with zod as
// the user types. /v1 bodies are the engine's, so svc has no schema of its own for them;
// these are OpenAI's bounds for temperature and a positive whole max_tokens.
import { z } from 'zod';
import { problemsOfIssues, type Problems } from '../../field-problems.js';

export const chatParamsSchema = z.object({
  temperature: z.number({ error: 'a number' }).min(0, 'at least 0').max(2, 'at most 2').optional(),
  max_tokens: z.number({ error: 'a whole number' }).int('a whole number').min(1, 'at least 1').optional(),
});

export type ChatParams = z.infer<typeof chatParamsSchema>;

export interface ChatSettingsInput {
  system: string;
  temperature: string;
  maxTokens: string;
}

/** Blank means "the engine's default": the field is left out of the request. */
const numberOrNothing = (text: string): number | undefined => (text.trim() === '' ? undefined : Number(text));

/** The request fields, or the problems by field path (temperature, max_tokens). */
export function readChatParams(input: ChatSettingsInput): { params: ChatParams; problems: Problems } {
  const raw = { temperature: numberOrNothing(input.temperature), max_tokens: numberOrNothing(input.maxTokens) };
  const parsed = chatParamsSchema.safeParse(raw);
  if (parsed.success) return { params: parsed.data, problems: {} };
  return { params: {}, problems: problemsOfIssues(parsed.error.issues) };
}
