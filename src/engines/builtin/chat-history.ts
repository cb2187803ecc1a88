// OpenAI messages as node-llama-cpp's chat history, so the chat wrapper renders them in the
// model's own syntax: an assistant's tool calls and the tool results that answer them become
// `functionCall` items of one model response (call, result, call, result, then the text the
// assistant wrote after them), which is how the wrapper's template expects them.
import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelResponse } from 'node-llama-cpp';

/** One part of a model response: text, a function call with its result, or a segment (a thought). */
export type ResponsePart = ChatModelResponse['response'][number];
import type { ChatMessage } from './chat-messages.js';

type ModelItem = ChatModelResponse;

/** A tool result as the wrapper writes it: JSON stays JSON, other text is a string. */
function resultValue(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

function callParams(args: string): unknown {
  const parsed = resultValue(args);
  // node-llama-cpp writes undefined params as "no parameters"; an empty object is the same call.
  return parsed === '' ? undefined : parsed;
}

export function toChatHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  const calls = new Map<string, ChatModelFunctionCall>();
  // After tool results, the assistant's next message continues the same model response.
  let continuing: ModelItem | null = null;
  for (const m of messages) {
    if (m.role === 'tool') {
      const call = calls.get(m.toolCallId);
      if (call) call.result = resultValue(m.content);
      continuing = history.at(-1)?.type === 'model' ? (history.at(-1) as ModelItem) : null;
      continue;
    }
    if (m.role !== 'assistant') {
      history.push({ type: m.role, text: m.content });
      continuing = null;
      continue;
    }
    const response: ResponsePart[] = m.content === '' && m.toolCalls ? [] : [m.content];
    for (const issued of m.toolCalls ?? []) {
      const call: ChatModelFunctionCall = { type: 'functionCall', name: issued.name, params: callParams(issued.arguments), result: undefined };
      calls.set(issued.id, call);
      response.push(call);
    }
    if (continuing) continuing.response.push(...response);
    else history.push({ type: 'model', response });
    continuing = m.toolCalls ? (history.at(-1) as ModelItem) : null;
  }
  return history;
}

/** The history with an open model response at its end, where the answer goes (a trailing assistant message is continued). */
export function withOpenResponse(history: readonly ChatHistoryItem[], prefix: readonly ResponsePart[] = []): ChatHistoryItem[] {
  const last = history.at(-1);
  if (last?.type === 'model') return [...history.slice(0, -1), { type: 'model', response: [...last.response, ...prefix] }];
  return [...history, { type: 'model', response: [...prefix] }];
}
