// Reflect (svc-memory's memory_reflect, answering {text}): a recall,
// then a short answer to the question from what was recalled, by the default llm
// (svc/primary) through the dispatcher in process. Without an llm it is refused with
// memory.llm_unavailable, never answered from nothing.
import { SvcError } from '../protocol/errors.js';
import type { MemoryItem } from '../protocol/memory.js';
import { callJson, type ModelDispatcher } from './model-calls.js';

/** The llm a reflection asks: the primary chain (docs/dispatch.md). */
export const REFLECT_MODEL = 'svc/primary';
/** A short answer: the question is about memories, not an essay. */
const REFLECT_MAX_TOKENS = 256;

export interface Reflection { text: string; model: string; based_on: string[] }

function prompt(query: string, items: readonly MemoryItem[]): Array<{ role: string; content: string }> {
  const notes = items.map((item, i) => `[${i + 1}] ${item.text}`).join('\n');
  return [
    { role: 'system', content: 'Answer the question briefly from the memories given. If they do not answer it, say so.' },
    { role: 'user', content: `Memories:\n${notes || '(none)'}\n\nQuestion: ${query}` },
  ];
}

/** The llm's answer to `query` from `items`; memory.llm_unavailable when no llm answers. */
export async function reflect(dispatcher: ModelDispatcher, query: string, items: readonly MemoryItem[], signal?: AbortSignal): Promise<Reflection> {
  let result: { status: number; answer: Record<string, unknown> };
  try {
    result = await callJson(dispatcher, 'chat', REFLECT_MODEL, '/chat/completions', { messages: prompt(query, items), max_tokens: REFLECT_MAX_TOKENS, stream: false }, signal);
  } catch (error) {
    const cause = error instanceof SvcError ? error.code : undefined;
    throw new SvcError('memory.llm_unavailable', `memory_reflect needs an llm slot (${REFLECT_MODEL}) and none could answer: ${(error as Error).message}`, { model: REFLECT_MODEL, ...(cause && { cause }) });
  }
  const choice = (result.answer.choices as Array<{ message?: { content?: unknown } }> | undefined)?.[0];
  const text = choice?.message?.content;
  if (result.status >= 400 || typeof text !== 'string') {
    const message = (result.answer.error as { message?: string } | undefined)?.message ?? 'no answer in the completion';
    throw new SvcError('memory.llm_unavailable', `memory_reflect's llm (${REFLECT_MODEL}) answered ${result.status}: ${message}`, { model: REFLECT_MODEL, status: result.status });
  }
  return { text: text.trim(), model: typeof result.answer.model === 'string' ? result.answer.model : REFLECT_MODEL, based_on: items.map((item) => item.id) };
}
