// A Responses `input` read into conversation items: validated (every problem a 400 naming
// its path, e.g. `input[3].call_id`), normalised to the shapes OpenAI lists under
// /input_items (string content becomes parts, every item gets an id and a status), and
// checked as a conversation: a function_call_output must answer a call_id that a
// function_call issued before it, in the previous response or earlier in this input.
//
// An item_reference is replaced by the item it names, found by `find` (the route's store),
// or dropped when the item is one of the previous response's (it is in the conversation
// already): the Vercel AI SDK, storing by default, sends earlier assistant messages and
// reasoning as references. One that names nothing svc has is a 400. Items svc cannot translate to chat completions are refused,
// never dropped: files (svc has no file store), images in a tool's output (chat tool
// messages are text), hosted tools' items.
import { newItemId, type ItemPrefix } from './ids.js';
import { describe, invalid, join, optionalString } from './invalid.js';
import { given, isObject, type Json, type ResponseItem } from './types.js';

const ROLES = ['user', 'assistant', 'system', 'developer'] as const;
const TEXT_PARTS = new Set(['input_text', 'output_text']);
const IMAGE_DETAIL = ['auto', 'low', 'high', 'original'];

/** Finds a stored item by id, for an item_reference. */
export type FindItem = (id: string) => ResponseItem | undefined;

export interface InputContext {
  /** The call ids the previous response's function_calls issued. */
  issued?: ReadonlySet<string>;
  /** The ids of the previous response's items: a reference to one of them adds nothing, it is in the conversation already. */
  present?: ReadonlySet<string>;
  find?: FindItem;
}

/** `input` as items, ids assigned. */
export function readInput(input: unknown, context: InputContext = {}): ResponseItem[] {
  if (typeof input === 'string') return [{ id: newItemId('msg'), type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: input }] }];
  if (!Array.isArray(input)) throw invalid('input', `must be a string or a list of items; got ${describe(input)}`);
  const calls = new Set(context.issued);
  const items: ResponseItem[] = [];
  input.forEach((raw, index) => {
    const path = join('input', index);
    if (!isObject(raw)) throw invalid(path, `must be an object (an input item); got ${describe(raw)}`);
    if (raw.type === 'item_reference' && typeof raw.id === 'string' && context.present?.has(raw.id)) return;
    const item = raw.type === 'item_reference' ? readReference(raw, path, calls, context.find ?? (() => undefined)) : readItem(raw, path, calls);
    if (item.type === 'function_call') calls.add(item.call_id as string);
    items.push(item);
  });
  return items;
}

function readItem(raw: Json, path: string, calls: ReadonlySet<string>): ResponseItem {
  const type = raw.type ?? (raw.role !== undefined ? 'message' : undefined);
  switch (type) {
    case 'message': return readMessage(raw, path);
    case 'function_call': return readFunctionCall(raw, path);
    case 'function_call_output': return readCallOutput(raw, path, calls);
    case 'reasoning': return { ...raw, id: idOf(raw, 'rs'), type: 'reasoning' };
    case undefined: throw invalid(join(path, 'type'), 'is required (or a `role`, for a message)');
    default:
      throw invalid(join(path, 'type'), `${describe(type)} cannot be translated to chat completions; svc takes message, function_call, function_call_output and reasoning items`);
  }
}

function readReference(raw: Json, path: string, calls: ReadonlySet<string>, find: FindItem): ResponseItem {
  const id = raw.id;
  if (typeof id !== 'string' || id === '') throw invalid(join(path, 'id'), 'is required (the id of a stored item)');
  const item = find(id);
  if (!item) throw invalid(join(path, 'id'), `${JSON.stringify(id)} names no item svc has stored; send the item itself (or store: true on the response that made it)`);
  return readItem(item, path, calls);
}

function readMessage(raw: Json, path: string): ResponseItem {
  const role = raw.role;
  if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) {
    throw invalid(join(path, 'role'), `must be one of ${ROLES.join(', ')}; got ${describe(role)}`);
  }
  const { content } = raw;
  const textType = role === 'assistant' ? 'output_text' : 'input_text';
  const parts = typeof content === 'string' ? [textPart(textType, content)] : readParts(content, join(path, 'content'), role);
  return { id: idOf(raw, 'msg'), type: 'message', role, status: 'completed', content: parts };
}

function readParts(content: unknown, path: string, role: string): Json[] {
  if (!Array.isArray(content)) throw invalid(path, `must be a string or a list of content parts; got ${describe(content)}`);
  return content.map((part, index) => {
    const at = join(path, index);
    if (!isObject(part)) throw invalid(at, `must be a content part object; got ${describe(part)}`);
    if (typeof part.type === 'string' && TEXT_PARTS.has(part.type)) {
      if (typeof part.text !== 'string') throw invalid(join(at, 'text'), `must be a string; got ${describe(part.text)}`);
      return textPart(part.type, part.text);
    }
    if (part.type === 'refusal' && role === 'assistant') {
      if (typeof part.refusal !== 'string') throw invalid(join(at, 'refusal'), `must be a string; got ${describe(part.refusal)}`);
      return { type: 'refusal', refusal: part.refusal };
    }
    if (part.type === 'input_image' && role === 'user') return readImage(part, at);
    if (part.type === 'input_image') throw invalid(join(at, 'type'), `images go in user messages; a ${role} message takes text parts`);
    if (part.type === 'input_file') throw invalid(join(at, 'type'), 'input_file is not supported: svc has no file store and chat completions take no files; send the text, or an image as input_image');
    throw invalid(join(at, 'type'), `${describe(part.type)} is not a content part svc translates; expected input_text, output_text${role === 'user' ? ', input_image' : ''}${role === 'assistant' ? ', refusal' : ''}`);
  });
}

function readImage(part: Json, at: string): Json {
  if (given(part, 'file_id') !== undefined) throw invalid(join(at, 'file_id'), 'is not supported: svc has no file store; send image_url (an https: or data: URL)');
  const source = given(part, 'image_url');
  const url = isObject(source) ? source.url : source;
  if (typeof url !== 'string' || url === '') throw invalid(join(at, 'image_url'), `must be an image URL (https: or data:) or {url}; got ${describe(source)}`);
  const detail = given(part, 'detail') ?? (isObject(source) ? given(source, 'detail') : undefined) ?? 'auto';
  if (typeof detail !== 'string' || !IMAGE_DETAIL.includes(detail)) throw invalid(join(at, 'detail'), `must be one of ${IMAGE_DETAIL.join(', ')}; got ${describe(detail)}`);
  return { type: 'input_image', image_url: url, detail };
}

function readFunctionCall(raw: Json, path: string): ResponseItem {
  const callId = requiredString(raw, 'call_id', path);
  const name = requiredString(raw, 'name', path);
  const args = raw.arguments;
  if (typeof args !== 'string') throw invalid(join(path, 'arguments'), `must be a string (the arguments as JSON text); got ${describe(args)}`);
  return { id: idOf(raw, 'fc'), type: 'function_call', call_id: callId, name, arguments: args, status: 'completed' };
}

function readCallOutput(raw: Json, path: string, calls: ReadonlySet<string>): ResponseItem {
  const callId = requiredString(raw, 'call_id', path);
  if (!calls.has(callId)) {
    throw invalid(join(path, 'call_id'), `${JSON.stringify(callId)} answers no function_call: no function_call before it, in this input or the previous response, issued this call_id`);
  }
  const { output } = raw;
  if (typeof output !== 'string' && !Array.isArray(output)) throw invalid(join(path, 'output'), `must be a string or a list of input_text parts; got ${describe(output)}`);
  if (Array.isArray(output)) {
    output.forEach((part, index) => {
      if (isObject(part) && part.type === 'input_text' && typeof part.text === 'string') return;
      throw invalid(join(join(path, 'output'), index), 'must be an input_text part: a chat completions tool message carries text only');
    });
  }
  return { id: idOf(raw, 'fco'), type: 'function_call_output', call_id: callId, output, status: 'completed' };
}

function requiredString(raw: Json, key: string, path: string): string {
  const value = optionalString(raw, key, path);
  if (value === undefined || value === '') throw invalid(join(path, key), 'is required (a non-empty string)');
  return value;
}

const textPart = (type: string, text: string): Json => (type === 'output_text' ? { type, text, annotations: [] } : { type, text });

/** A client re-sending items it got back keeps their ids; a new item gets one. */
const idOf = (raw: Json, prefix: ItemPrefix): string => (typeof raw.id === 'string' && raw.id !== '' ? raw.id : newItemId(prefix));
