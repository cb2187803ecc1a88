// A POST /v1/responses body validated and translated into a chat completions body (the
// route adds model and stream), this turn's items (for the store) and what the Response
// object echoes. Pure: the previous response's conversation comes in as `history`.
//
// instructions become the first system message and, as at OpenAI, are not inherited from
// the previous response (they are no item of its conversation). Fields svc can only echo
// (store, truncation, service_tier, prompt_cache_key, ...) are accepted; what it cannot do
// at all (background runs, stored prompts, server-side conversations) is a 400 that says so.
// Unknown top-level fields are ignored, as the chat route passes them on.
import { readInput, type FindItem } from './input.js';
import { describe, invalid, optionalBoolean, optionalEnum, optionalNumber, optionalString } from './invalid.js';
import { chatMessages } from './messages.js';
import { readText, readToolChoice, readTools } from './tools.js';
import { given, isObject, type ChatPlan, type Json, type ResponseItem } from './types.js';

const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
const NO_THINKING: ReadonlySet<string> = new Set(['none', 'minimal']);
const LOGPROBS_INCLUDE = 'message.output_text.logprobs';

/**
 * `history`: the previous response's conversation (its input items, then its output items)
 * when previous_response_id was given, else []. `find`: the stored item with an id, for
 * item_reference items; a reference to an item of `history` adds nothing (it is there).
 */
export function planChat(body: Json, history: readonly ResponseItem[], find?: FindItem): ChatPlan {
  refuseUnsupported(body);
  optionalBoolean(body, 'stream');
  const instructions = optionalString(body, 'instructions');
  const issued = new Set(history.filter((item) => item.type === 'function_call').map((item) => String(item.call_id)));
  const rawInput = given(body, 'input');
  if (rawInput === undefined && history.length === 0) throw invalid('input', 'is required: a string or a list of items');
  const present = new Set(history.map((item) => item.id));
  const input = rawInput === undefined ? [] : readInput(rawInput, { issued, present, ...(find && { find }) });
  const tools = readTools(given(body, 'tools'));
  const toolChoice = readToolChoice(given(body, 'tool_choice'), tools);
  const text = readText(given(body, 'text'));
  const parallelToolCalls = optionalBoolean(body, 'parallel_tool_calls') ?? true;
  const maxOutputTokens = optionalNumber(body, 'max_output_tokens', { min: 1, max: 2 ** 31 - 1, integer: true });
  const temperature = optionalNumber(body, 'temperature', { min: 0, max: 2 });
  const topP = optionalNumber(body, 'top_p', { min: 0, max: 1 });
  const topLogprobs = optionalNumber(body, 'top_logprobs', { min: 0, max: 20, integer: true });
  const include = readInclude(given(body, 'include'));
  const reasoning = readReasoning(given(body, 'reasoning'));
  const user = optionalString(body, 'user');

  const conversation = chatMessages([...history, ...input]);
  if (!conversation.some((m) => m.role !== 'system')) throw invalid('input', 'has nothing to answer: give at least one user message (or previous_response_id)');
  const messages = instructions ? [{ role: 'system', content: instructions }, ...conversation] : conversation;
  const logprobs = include.includes(LOGPROBS_INCLUDE) || (topLogprobs ?? 0) > 0;
  const hasTools = tools.chat.length > 0;
  const chat: Json = {
    messages,
    ...(hasTools && { tools: tools.chat, parallel_tool_calls: parallelToolCalls }),
    ...(toolChoice.chat !== undefined && { tool_choice: toolChoice.chat }),
    ...(text.responseFormat && { response_format: text.responseFormat }),
    ...(maxOutputTokens !== undefined && { max_tokens: maxOutputTokens }),
    ...(temperature !== undefined && { temperature }),
    ...(topP !== undefined && { top_p: topP }),
    ...(logprobs && { logprobs: true }),
    ...(logprobs && topLogprobs !== undefined && { top_logprobs: topLogprobs }),
    ...(user !== undefined && { user }),
  };
  const echo: Json = {
    background: false,
    instructions: instructions ?? null,
    max_output_tokens: maxOutputTokens ?? null,
    max_tool_calls: null,
    parallel_tool_calls: parallelToolCalls,
    previous_response_id: optionalString(body, 'previous_response_id') ?? null,
    prompt_cache_key: optionalString(body, 'prompt_cache_key') ?? null,
    reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    safety_identifier: optionalString(body, 'safety_identifier') ?? null,
    service_tier: optionalString(body, 'service_tier') ?? 'default',
    store: optionalBoolean(body, 'store') ?? true,
    temperature: temperature ?? 1,
    text: text.echo,
    tool_choice: toolChoice.echo,
    tools: tools.echo,
    top_logprobs: topLogprobs ?? 0,
    top_p: topP ?? 1,
    truncation: optionalEnum(body, 'truncation', ['disabled', 'auto']) ?? 'disabled',
    user: user ?? null,
    metadata: readMetadata(given(body, 'metadata')),
  };
  const enableThinking = reasoning.effort === undefined ? null : !NO_THINKING.has(reasoning.effort);
  return { chat, input, echo, enableThinking };
}

function refuseUnsupported(body: Json): void {
  if (given(body, 'background') === true) throw invalid('background', 'svc does not run background responses; send the request without it (stream: true to watch it run)');
  if (given(body, 'conversation') !== undefined) throw invalid('conversation', 'svc keeps no conversations; chain responses with previous_response_id');
  if (given(body, 'prompt') !== undefined) throw invalid('prompt', "stored prompt templates live on OpenAI's side; send instructions and input instead");
}

function readInclude(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalid('include', `must be a list of strings; got ${describe(value)}`);
  value.forEach((entry, index) => {
    if (typeof entry !== 'string') throw invalid(`include[${index}]`, `must be a string; got ${describe(entry)}`);
  });
  return value as string[];
}

function readReasoning(value: unknown): { effort?: string; summary?: string } {
  if (value === undefined) return {};
  if (!isObject(value)) throw invalid('reasoning', `must be an object ({effort, summary}); got ${describe(value)}`);
  return {
    effort: optionalEnum(value, 'effort', EFFORTS, 'reasoning'),
    summary: optionalEnum(value, 'summary', ['auto', 'concise', 'detailed'], 'reasoning'),
  };
}

/** OpenAI's limits: at most 16 pairs, keys up to 64 characters, string values up to 512. */
function readMetadata(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) throw invalid('metadata', `must be an object of string values; got ${describe(value)}`);
  const entries = Object.entries(value);
  if (entries.length > 16) throw invalid('metadata', `has ${entries.length} keys; at most 16`);
  for (const [key, entry] of entries) {
    if (key.length > 64) throw invalid(`metadata.${key.slice(0, 64)}`, `key is ${key.length} characters long; at most 64`);
    if (typeof entry !== 'string') throw invalid(`metadata.${key}`, `must be a string; got ${describe(entry)}`);
    if (entry.length > 512) throw invalid(`metadata.${key}`, `is ${entry.length} characters long; at most 512`);
  }
  return value as Record<string, string>;
}
