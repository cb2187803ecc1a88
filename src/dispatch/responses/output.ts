// The pieces of a Response object that answer.ts (one chat completion) and stream.ts (a
// chat stream) both build, so the two give the same shapes: output items, usage, the
// outcome of a finish_reason, logprobs, and the top level, which carries every field the
// official client and the Vercel AI SDK read (usage included, zeros when unknown). No
// `output_text`: the SDKs compute it from the output.
import { isObject, type Json, type ResponseMeta } from './types.js';

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export const outputTextPart = (text: string, logprobs: readonly Json[] = []): Json => ({ type: 'output_text', text, annotations: [], logprobs: [...logprobs] });

export const reasoningTextPart = (text: string): Json => ({ type: 'reasoning_text', text });

export const messageItem = (id: string, status: ItemStatus, content: Json[]): Json => ({ id, type: 'message', status, role: 'assistant', content });

export const reasoningItem = (id: string, content: Json[]): Json => ({ id, type: 'reasoning', summary: [], content });

export const functionCallItem = (id: string, status: ItemStatus, call: { callId: string; name: string; arguments: string }): Json =>
  ({ id, type: 'function_call', status, call_id: call.callId, name: call.name, arguments: call.arguments });

/**
 * A function call's item status: `incomplete` when the answer was cut short and its arguments
 * are not a whole JSON value (an engine that sent a call max_tokens cut in half; the built-in
 * engine sends only whole calls), else `completed`.
 */
export function callStatus(outcome: Outcome, args: string): ItemStatus {
  if (outcome.status === 'completed') return 'completed';
  try {
    JSON.parse(args);
    return 'completed';
  } catch {
    return 'incomplete';
  }
}

export interface Outcome {
  status: 'completed' | 'incomplete';
  incompleteDetails: Json | null;
}

/** A chat finish_reason as the Response's status: cut short by max_tokens or a filter is incomplete. */
export function outcomeOf(finishReason: unknown): Outcome {
  if (finishReason === 'length') return { status: 'incomplete', incompleteDetails: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter') return { status: 'incomplete', incompleteDetails: { reason: 'content_filter' } };
  return { status: 'completed', incompleteDetails: null };
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** Chat usage (prompt/completion tokens) in Responses' words; zeros when the engine sent none. */
export function usageOf(chatUsage: unknown): Json {
  const usage = isObject(chatUsage) ? chatUsage : {};
  const prompt = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completion = isObject(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  const input = count(usage.prompt_tokens);
  const output = count(usage.completion_tokens);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: count(prompt.cached_tokens) },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: count(completion.reasoning_tokens) },
    total_tokens: typeof usage.total_tokens === 'number' ? usage.total_tokens : input + output,
  };
}

/** Chat logprobs ({content: [{token, logprob, bytes, top_logprobs}]}) as output_text logprobs. */
export function logprobsOf(chatLogprobs: unknown): Json[] {
  const content = isObject(chatLogprobs) && Array.isArray(chatLogprobs.content) ? chatLogprobs.content.filter(isObject) : [];
  const one = (entry: Json): Json => ({ token: String(entry.token ?? ''), bytes: Array.isArray(entry.bytes) ? entry.bytes : [], logprob: count(entry.logprob) });
  return content.map((entry) => ({ ...one(entry), top_logprobs: Array.isArray(entry.top_logprobs) ? entry.top_logprobs.filter(isObject).map(one) : [] }));
}

/** A chat answer's text: a string, or (from some upstreams) a list of text parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : '')).join('');
}

/** Tool call arguments as JSON text; a few engines send them as an object. */
export const argumentsText = (value: unknown): string => (typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value));

/** The reasoning an engine gave beside the answer: llama-server's reasoning_content, or vLLM's reasoning. */
export function reasoningText(message: Json): string {
  const value = message.reasoning_content ?? message.reasoning;
  return typeof value === 'string' ? value : '';
}

export interface ResponseState {
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  output: Json[];
  usage: Json | null;
  error?: { code: string; message: string } | null;
  incompleteDetails?: Json | null;
}

export function responseObject(meta: ResponseMeta, state: ResponseState): Json {
  return {
    id: meta.id,
    object: 'response',
    created_at: meta.createdAt,
    status: state.status,
    error: state.error ?? null,
    incomplete_details: state.incompleteDetails ?? null,
    ...meta.echo,
    model: meta.model,
    output: state.output,
    usage: state.usage,
  };
}
