// Reading `messages`: the roles, text content, an assistant's tool calls and the tool
// results that answer them. A tool result must answer a call that an earlier assistant
// message issued: the chat template renders it next to that call, so an unknown id is
// a 400 at messages[i].tool_call_id rather than a result that floats free in the prompt.
import { invalidAt, isObject, type Json } from './field-errors.js';
import { invalidRequest } from './http-io.js';

/** A tool call an assistant message made earlier in the conversation. */
export interface IssuedCall {
  id: string;
  name: string;
  /** The arguments as the client sent them (OpenAI's JSON string). */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: IssuedCall[] }
  | { role: 'tool'; content: string; toolCallId: string };

const ROLES: Readonly<Record<string, ChatMessage['role']>> = { system: 'system', developer: 'system', user: 'user', assistant: 'assistant', tool: 'tool' };

/** Text of a message's content: a string, null (an empty assistant turn) or text parts. */
function contentText(content: unknown, where: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalidRequest(`'${where}.content' must be a string or a list of content parts`);
  return content.map((part: unknown, i) => {
    const p = (part ?? {}) as Json;
    if (p.type !== 'text' || typeof p.text !== 'string') {
      throw invalidRequest(`'${where}.content[${i}]' is a "${String(p.type)}" part; the built-in engine reads only text parts`);
    }
    return p.text;
  }).join('\n');
}

function issuedCalls(value: unknown, where: string): IssuedCall[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalidAt(`${where}.tool_calls`, 'must be a list');
  return value.map((raw: unknown, j): IssuedCall => {
    const path = `${where}.tool_calls[${j}]`;
    if (!isObject(raw)) throw invalidAt(path, 'must be an object');
    if (raw.type !== undefined && raw.type !== 'function') throw invalidAt(`${path}.type`, `must be "function"; got ${JSON.stringify(raw.type)}`);
    if (typeof raw.id !== 'string' || raw.id === '') throw invalidAt(`${path}.id`, 'must be a non-empty string');
    const fn = raw.function;
    if (!isObject(fn)) throw invalidAt(`${path}.function`, 'must be an object');
    if (typeof fn.name !== 'string' || fn.name === '') throw invalidAt(`${path}.function.name`, 'must be a non-empty string');
    const args = fn.arguments ?? '{}';
    if (typeof args !== 'string') throw invalidAt(`${path}.function.arguments`, 'must be a string (the arguments as JSON text)');
    return { id: raw.id, name: fn.name, arguments: args };
  });
}

export function readMessages(value: unknown): ChatMessage[] {
  if (value === undefined) throw invalidRequest("'messages' is required");
  if (!Array.isArray(value)) throw invalidRequest("Expected 'messages' to be an array");
  if (value.length === 0) throw invalidRequest("'messages' must not be empty");
  const issued = new Set<string>();
  return value.map((raw: unknown, i): ChatMessage => {
    const where = `messages[${i}]`;
    const message = (raw ?? {}) as Json;
    const role = ROLES[String(message.role)];
    if (!role) throw invalidRequest(`'${where}.role' must be one of system, developer, user, assistant, tool; got ${JSON.stringify(message.role)}`);
    const content = contentText(message.content, where);
    if (role === 'assistant') {
      const toolCalls = issuedCalls(message.tool_calls, where);
      if (!toolCalls) return { role, content };
      for (const call of toolCalls) issued.add(call.id);
      return { role, content, toolCalls };
    }
    if (role === 'tool') {
      const id = message.tool_call_id;
      if (typeof id !== 'string' || id === '') throw invalidAt(`${where}.tool_call_id`, 'must be a non-empty string: the id of the call this message answers');
      if (!issued.has(id)) throw invalidAt(`${where}.tool_call_id`, `is ${JSON.stringify(id)}, which no earlier assistant message issued in its tool_calls`);
      return { role, content, toolCallId: id };
    }
    return { role, content };
  });
}
