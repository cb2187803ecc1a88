// Conversation items (already read by input.ts, or stored from an earlier response) as
// chat completions messages:
// - message: role developer becomes system (llama.cpp's chat templates and svc's built-in
//   engine know system, not always developer); a lone text part becomes a plain string,
//   the form every engine takes; an assistant's parts are joined into one string.
// - function_call: an assistant message with tool_calls; consecutive calls, and calls that
//   follow the assistant's text, join that one assistant message, as a chat model gave them.
// - function_call_output: a tool message.
// - reasoning: dropped. Engines differ in whether they take earlier reasoning back
//   (reasoning_content), and a chat template re-renders it from the text anyway.
import { isObject, type Json, type ResponseItem } from './types.js';

export function chatMessages(items: readonly ResponseItem[]): Json[] {
  const messages: Json[] = [];
  for (const item of items) {
    if (item.type === 'message') messages.push(fromMessage(item));
    else if (item.type === 'function_call') addToolCall(messages, item);
    else if (item.type === 'function_call_output') messages.push({ role: 'tool', tool_call_id: item.call_id, content: outputText(item.output) });
  }
  return messages;
}

function fromMessage(item: ResponseItem): Json {
  const parts = Array.isArray(item.content) ? item.content.filter(isObject) : [];
  const role = item.role === 'developer' ? 'system' : item.role;
  if (role === 'assistant') return { role, content: parts.map((p) => (typeof p.text === 'string' ? p.text : typeof p.refusal === 'string' ? p.refusal : '')).join('') };
  const chatParts = parts.map((p) => (p.type === 'input_image' ? { type: 'image_url', image_url: { url: p.image_url, detail: p.detail } } : { type: 'text', text: p.text }));
  const [only] = chatParts;
  return { role, content: chatParts.length === 1 && only?.type === 'text' ? only.text : chatParts };
}

function addToolCall(messages: Json[], item: ResponseItem): void {
  const call = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    last.tool_calls = [...(Array.isArray(last.tool_calls) ? last.tool_calls : []), call];
    if (last.content === '') last.content = null;
    return;
  }
  messages.push({ role: 'assistant', content: null, tool_calls: [call] });
}

const outputText = (output: unknown): string =>
  typeof output === 'string' ? output : Array.isArray(output) ? output.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join('') : '';
