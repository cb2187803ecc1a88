// A prompt longer than a slot's context is request.context_exceeded, from whichever engine
// (the built-in engine says it in svc's envelope; llama-server as its exceed_context_size_error,
// which would otherwise read upstream.bad_request), and the message names the fix: the
// command that raises the slot's context and the restart that applies it (docs/errors.md).
import type { ErrorEnvelope } from '../protocol/errors.js';
import { MAX_CTX_SIZE } from '../protocol/slot-limits.js';

/** Room the suggested context leaves for the reply, on top of the prompt. */
const REPLY_ROOM = 1024;

/** A context that holds `promptTokens` and a reply: the next power of two above both. */
export function suggestedContext(promptTokens: number): number {
  let size = 1024;
  while (size < promptTokens + REPLY_ROOM && size < MAX_CTX_SIZE) size *= 2;
  return Math.min(size, MAX_CTX_SIZE);
}

const numberOr = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * The envelope as request.context_exceeded with the fix in its message, when `envelope` (from
 * `upstream`, an engine's raw JSON error, if any) says the prompt does not fit slot `slot`'s
 * context; otherwise `envelope` as it is.
 */
export function withContextHint(envelope: ErrorEnvelope, slot: string, upstream?: unknown): ErrorEnvelope {
  const raw = (upstream as { error?: { type?: unknown; n_prompt_tokens?: unknown; n_ctx?: unknown } } | undefined)?.error;
  const fromLlama = typeof raw === 'object' && raw !== null && raw.type === 'exceed_context_size_error';
  if (envelope.error.code !== 'request.context_exceeded' && !fromLlama) return envelope;
  const details = envelope.error.details;
  const prompt = numberOr(details.n_prompt_tokens) ?? numberOr(raw?.n_prompt_tokens);
  const context = numberOr(details.n_ctx) ?? numberOr(raw?.n_ctx);
  const size = prompt === undefined ? undefined : suggestedContext(prompt);
  const said = envelope.error.message.replace(/[,;]\s*try increasing it\.?$/i, '');
  const measured = prompt !== undefined && context !== undefined && !said.includes(String(prompt)) ? ` (${prompt} prompt tokens, ${context} in the context)` : '';
  const fix = `raise slot ${slot}'s context: \`svc slot edit ${slot} --ctx-size ${size ?? '<n>'}\`, then \`svc slot restart ${slot}\` (or Context size in the dashboard's slot form)`;
  return {
    error: {
      code: 'request.context_exceeded',
      message: `${said}${measured}; ${fix}`,
      details: { ...details, slot, ...(prompt !== undefined && { n_prompt_tokens: prompt }), ...(context !== undefined && { n_ctx: context }), ...(size !== undefined && { suggested_ctx_size: size }) },
    },
  };
}
