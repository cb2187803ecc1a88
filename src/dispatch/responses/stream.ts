// A chat completions stream turned into the Responses event sequence, as OpenAI sends it:
//   response.created, response.in_progress,
//   per output item: output_item.added, [content_part.added, *.delta..., *.done,
//   content_part.done] or [function_call_arguments.delta..., .done], output_item.done,
//   response.completed | response.incomplete | response.failed,
// every event with a sequence_number from 0 up. Item ids stay the same from added to done;
// each .done event carries the full text or arguments; the final response holds every item
// and the usage (the chat usage chunk's, else zeros).
//
// Items open in the order the model produces them. Reasoning and text are one open item at
// a time: a delta of the other kind closes the open one. Tool calls stay open until the
// answer ends (or text follows them), so arguments that arrive for several chat tool_call
// indices, even in one chunk, each land in their own function_call item.
import { newItemId } from './ids.js';
import { argumentsText, callStatus, contentText, functionCallItem, logprobsOf, messageItem, outcomeOf, outputTextPart, reasoningItem, reasoningText, reasoningTextPart, responseObject, usageOf, type ItemStatus, type Outcome, type ResponseState } from './output.js';
import { isObject, type Json, type ResponseMeta } from './types.js';

interface TextItem { kind: 'message' | 'reasoning'; id: string; index: number; text: string; logprobs: Json[] }
interface CallItem { id: string; index: number; callId: string; name: string; args: string }

export class ResponsesStream {
  readonly #meta: ResponseMeta;
  readonly #emit: (event: Json) => void;
  #sequence = 0;
  #phase: 'new' | 'open' | 'ended' = 'new';
  /** Output items by output_index; an open item's place holds undefined until it closes. */
  readonly #output: (Json | undefined)[] = [];
  #text: TextItem | null = null;
  /** Open function calls by the chat tool_calls index; a Map keeps them in output order. */
  readonly #calls = new Map<number, CallItem>();
  #finishReason: unknown = null;
  #usage: unknown = undefined;
  #final: Json | null = null;

  constructor(meta: ResponseMeta, emit: (event: Json) => void) {
    this.#meta = meta;
    this.#emit = emit;
  }

  start(): void {
    if (this.#phase !== 'new') return;
    this.#phase = 'open';
    const response = this.#response({ status: 'in_progress', output: [], usage: null });
    this.#send('response.created', { response });
    this.#send('response.in_progress', { response });
  }

  chunk(chunk: Json): void {
    if (this.#phase === 'ended') return;
    this.start();
    if (isObject(chunk.usage)) this.#usage = chunk.usage;
    const choices = Array.isArray(chunk.choices) ? chunk.choices.filter(isObject) : [];
    const choice = choices.find((c) => c.index === 0 || c.index === undefined);
    if (!choice) return;
    const delta = isObject(choice.delta) ? choice.delta : {};
    const reasoning = reasoningText(delta);
    if (reasoning) this.#textDelta('reasoning', reasoning, []);
    const content = contentText(delta.content);
    if (content) this.#textDelta('message', content, logprobsOf(choice.logprobs));
    if (Array.isArray(delta.tool_calls)) delta.tool_calls.forEach((call: unknown, position) => isObject(call) && this.#callDelta(call, position));
    if (typeof choice.finish_reason === 'string') this.#finishReason = choice.finish_reason;
  }

  finish(): Json {
    if (this.#final) return this.#final;
    this.start();
    const outcome = outcomeOf(this.#finishReason);
    this.#closeText(outcome.status);
    this.#closeCalls(outcome);
    this.#phase = 'ended';
    this.#final = this.#response({ status: outcome.status, incompleteDetails: outcome.incompleteDetails, output: this.#closedOutput(), usage: usageOf(this.#usage) });
    this.#send(outcome.status === 'completed' ? 'response.completed' : 'response.incomplete', { response: this.#final });
    return this.#final;
  }

  /** The stream broke off (the engine failed, the upstream hung up): what was produced so far, marked incomplete. */
  fail(error: { code: string; message: string }): Json {
    if (this.#final) return this.#final;
    this.start();
    if (this.#text) this.#output[this.#text.index] = this.#textItem(this.#text, 'incomplete');
    for (const call of this.#calls.values()) this.#output[call.index] = this.#callItem(call, 'incomplete');
    this.#text = null;
    this.#calls.clear();
    this.#phase = 'ended';
    const usage = this.#usage === undefined ? null : usageOf(this.#usage);
    this.#final = this.#response({ status: 'failed', error: { code: error.code, message: error.message }, output: this.#closedOutput(), usage });
    this.#send('response.failed', { response: this.#final });
    return this.#final;
  }

  #textDelta(kind: TextItem['kind'], delta: string, logprobs: Json[]): void {
    if (this.#text?.kind !== kind) {
      this.#closeText('completed');
      this.#closeCalls();
      this.#text = this.#openText(kind);
    }
    const item = this.#text;
    item.text += delta;
    item.logprobs.push(...logprobs);
    const at = { item_id: item.id, output_index: item.index, content_index: 0, delta };
    if (kind === 'message') this.#send('response.output_text.delta', { ...at, logprobs });
    else this.#send('response.reasoning_text.delta', at);
  }

  #openText(kind: TextItem['kind']): TextItem {
    const item: TextItem = { kind, id: newItemId(kind === 'message' ? 'msg' : 'rs'), index: this.#output.push(undefined) - 1, text: '', logprobs: [] };
    const empty = kind === 'message' ? messageItem(item.id, 'in_progress', []) : reasoningItem(item.id, []);
    this.#send('response.output_item.added', { output_index: item.index, item: empty });
    const part = kind === 'message' ? outputTextPart('') : reasoningTextPart('');
    this.#send('response.content_part.added', { item_id: item.id, output_index: item.index, content_index: 0, part });
    return item;
  }

  #closeText(status: ItemStatus): void {
    const open = this.#text;
    if (!open) return;
    this.#text = null;
    const at = { item_id: open.id, output_index: open.index, content_index: 0 };
    if (open.kind === 'message') this.#send('response.output_text.done', { ...at, text: open.text, logprobs: open.logprobs });
    else this.#send('response.reasoning_text.done', { ...at, text: open.text });
    const item = this.#textItem(open, status);
    this.#send('response.content_part.done', { ...at, part: (item.content as Json[])[0] });
    this.#output[open.index] = item;
    this.#send('response.output_item.done', { output_index: open.index, item });
  }

  #textItem(open: TextItem, status: ItemStatus): Json {
    return open.kind === 'message'
      ? messageItem(open.id, status, [outputTextPart(open.text, open.logprobs)])
      : reasoningItem(open.id, [reasoningTextPart(open.text)]);
  }

  #callDelta(call: Json, position: number): void {
    this.#closeText('completed');
    const key = typeof call.index === 'number' ? call.index : position;
    const fn = isObject(call.function) ? call.function : {};
    let open = this.#calls.get(key);
    if (!open) {
      const callId = typeof call.id === 'string' && call.id !== '' ? call.id : newItemId('call');
      open = { id: newItemId('fc'), index: this.#output.push(undefined) - 1, callId, name: typeof fn.name === 'string' ? fn.name : '', args: '' };
      this.#calls.set(key, open);
      this.#send('response.output_item.added', { output_index: open.index, item: this.#callItem(open, 'in_progress') });
    } else if (open.name === '' && typeof fn.name === 'string') {
      open.name = fn.name;
    }
    const piece = argumentsText(fn.arguments);
    if (piece) this.#argumentsDelta(open, piece);
  }

  #argumentsDelta(open: CallItem, piece: string): void {
    open.args += piece;
    this.#send('response.function_call_arguments.delta', { item_id: open.id, output_index: open.index, delta: piece });
  }

  /**
   * A call that got no arguments at all gets "{}", what OpenAI sends for a function without
   * parameters; one the end of the answer cut short is closed `incomplete` (callStatus).
   */
  #closeCalls(outcome: Outcome = outcomeOf('stop')): void {
    for (const open of this.#calls.values()) {
      if (open.args === '') this.#argumentsDelta(open, '{}');
      this.#send('response.function_call_arguments.done', { item_id: open.id, output_index: open.index, name: open.name, arguments: open.args });
      const item = this.#callItem(open, callStatus(outcome, open.args));
      this.#output[open.index] = item;
      this.#send('response.output_item.done', { output_index: open.index, item });
    }
    this.#calls.clear();
  }

  #callItem(open: CallItem, status: ItemStatus): Json {
    return functionCallItem(open.id, status, { callId: open.callId, name: open.name, arguments: open.args });
  }

  #closedOutput(): Json[] {
    return this.#output.filter((item): item is Json => item !== undefined);
  }

  #response(state: ResponseState): Json {
    return responseObject(this.#meta, state);
  }

  #send(type: string, fields: Json): void {
    this.#emit({ type, ...fields, sequence_number: this.#sequence++ });
  }
}
