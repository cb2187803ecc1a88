// Chat turns with tools, JSON output and logprobs on the real tiny model (node-llama-cpp,
// CPU). Its weights are random, so what it says is nonsense; what is tested is the shape the
// grammar and the parsers guarantee whatever it says: arguments that validate, calls that
// stream back into the same calls, and the model's own choice under tool_choice auto.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { ChatMLChatWrapper, ChatWrapper, getLlama, LlamaLogLevel, LlamaText, type ChatWrapperSettings, type Llama } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyModel } from '../gguf/tiny-model.js';
import type { Delta, GenerationTarget } from './generate.js';
import { readChatRequest } from './request.js';
import { chatRoute, ownCallsAnswer, ownTextAnswer, type ChatTurn } from './structured-chat.js';
import { autoToolAnswer } from './tool-choice-auto.js';

/** ChatML whose call syntax begins with ".", which ends the tiny model's sentences: it soon "decides" to call. */
const base = ChatWrapper.defaultSettings;
class EagerCaller extends ChatMLChatWrapper {
  override readonly settings: ChatWrapperSettings = { ...base, functions: { ...base.functions, call: { ...base.functions.call, optionalPrefixSpace: false, prefix: LlamaText('.'), prefixAlternateMatches: [] } } };
}

let dir: string;
let llama: Llama;
let target: GenerationTarget;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-structured-'));
  await writeTinyModel(join(dir, 'tiny.gguf'));
  llama = await getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, progressLogs: false, logLevel: LlamaLogLevel.error, maxThreads: 1 });
  const model = await llama.loadModel({ modelPath: join(dir, 'tiny.gguf') });
  const context = await model.createContext({ contextSize: 2048, threads: 1 });
  target = { model, sequence: context.getSequence(), contextSize: context.contextSize };
});

afterAll(async () => {
  await llama?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const ajv = new Ajv({ strict: false });
const messages = [{ role: 'user', content: 'hello' }];
const weatherParams = { type: 'object', properties: { city: { type: 'string', maxLength: 24 }, unit: { enum: ['c', 'f'] }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city', 'unit'], additionalProperties: false };
const tools = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: weatherParams } },
  { type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {}, additionalProperties: false } } },
];

async function turn(body: Record<string, unknown>, answer: (t: ChatTurn) => ReturnType<typeof ownTextAnswer>, wrapper: ChatWrapper = new ChatMLChatWrapper(), seed = 3) {
  const deltas: Delta[] = [];
  const request = readChatRequest({ messages, ...body });
  const result = await answer({ target, wrapper, request, seed, signal: new AbortController().signal, onDelta: (d) => deltas.push(d) });
  return { result, deltas };
}

/** The calls as a client puts them back together from the deltas. */
function reassemble(deltas: readonly Delta[]) {
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const { toolCall } of deltas) {
    if (!toolCall) continue;
    if (toolCall.id) calls[toolCall.index] = { id: toolCall.id, name: toolCall.function.name!, arguments: '' };
    calls[toolCall.index]!.arguments += toolCall.function.arguments;
  }
  return calls;
}

describe('chatRoute', () => {
  it('plain requests stay on LlamaChat; JSON, logprobs and tools take their own ways', () => {
    const route = (body: Record<string, unknown>) => chatRoute(readChatRequest({ messages, ...body }));
    expect(route({})).toBe('plain');
    expect(route({ response_format: { type: 'json_object' } })).toBe('own');
    expect(route({ logprobs: true })).toBe('own');
    expect(route({ tools, tool_choice: 'none' })).toBe('own');
    expect(route({ tools })).toBe('auto');
    expect(route({ tools, tool_choice: 'required' })).toBe('calls');
    expect(route({ tools, tool_choice: { type: 'function', function: { name: 'now' } } })).toBe('calls');
  });
});

describe('forced tool calls', () => {
  it('required: calls whose arguments validate against their function, streamed into the same calls', async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const { result, deltas } = await turn({ tools, tool_choice: 'required', parallel_tool_calls: false }, ownCallsAnswer, undefined, seed);
      expect(result.finishReason).toBe('tool_calls');
      expect(result.toolCalls).toHaveLength(1);
      const [call] = result.toolCalls!;
      expect(['get_weather', 'now']).toContain(call!.name);
      const params = call!.name === 'now' ? tools[1]!.function.parameters : weatherParams;
      expect(ajv.validate(params, JSON.parse(call!.arguments)), ajv.errorsText()).toBe(true);
      expect(call!.id).toMatch(/^call_[0-9a-f]{24}$/);
      expect(reassemble(deltas)).toEqual(result.toolCalls);
    }
  });

  it('a named function: only that one, and with parallel calls each has its own id', async () => {
    const { result, deltas } = await turn({ tools, tool_choice: { type: 'function', function: { name: 'get_weather' } }, max_tokens: 400 }, ownCallsAnswer);
    expect(result.toolCalls!.length).toBeGreaterThan(0);
    for (const call of result.toolCalls!.slice(0, result.finishReason === 'tool_calls' ? undefined : -1)) {
      expect(call.name).toBe('get_weather');
      expect(ajv.validate(weatherParams, JSON.parse(call.arguments)), ajv.errorsText()).toBe(true);
    }
    expect(new Set(result.toolCalls!.map((c) => c.id)).size).toBe(result.toolCalls!.length);
    expect(reassemble(deltas)).toEqual(result.toolCalls);
  });

  it('tool results in the history are rendered back into the prompt', async () => {
    const history = [...messages, { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'now', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'call_a', content: '"noon"' }];
    const bare = await turn({ tools, tool_choice: 'required', parallel_tool_calls: false }, ownCallsAnswer);
    const withResult = await turn({ messages: history, tools, tool_choice: 'required', parallel_tool_calls: false }, ownCallsAnswer);
    expect(withResult.result.promptTokens).toBeGreaterThan(bare.result.promptTokens + 10);
  });
});

describe('tool_choice auto: the model chooses in its own syntax', () => {
  it('when it begins a call, the call is generated by the grammar, for the function it chose', async () => {
    const { result, deltas } = await turn({ tools, parallel_tool_calls: false, max_tokens: 300 }, autoToolAnswer, new EagerCaller());
    expect(result.finishReason).toBe('tool_calls');
    // What it said before the call is the answer's content, streamed before the call's deltas.
    expect(result.text).toMatch(/\S/);
    expect(deltas.filter((d) => d.content !== undefined).map((d) => d.content).join('')).toBe(result.text);
    expect(deltas.findIndex((d) => d.toolCall)).toBeGreaterThan(deltas.findLastIndex((d) => d.content !== undefined));
    expect(result.toolCalls).toHaveLength(1);
    const [call] = result.toolCalls!;
    const params = call!.name === 'now' ? tools[1]!.function.parameters : weatherParams;
    expect(ajv.validate(params, JSON.parse(call!.arguments)), ajv.errorsText()).toBe(true);
    expect(reassemble(deltas)).toEqual(result.toolCalls);
  });

  it('when it answers in text, that is the answer (and with response_format, the text is JSON)', async () => {
    const text = await turn({ tools, max_tokens: 40 }, autoToolAnswer);
    expect(text.result.toolCalls).toBeUndefined();
    expect(text.result.text).toMatch(/\S/);
    expect(text.deltas.map((d) => d.content).join('')).toBe(text.result.text);
    const json = await turn({ tools, max_tokens: 400, response_format: { type: 'json_schema', json_schema: { name: 'w', schema: weatherParams } } }, autoToolAnswer);
    expect(json.result.toolCalls).toBeUndefined();
    expect(ajv.validate(weatherParams, JSON.parse(json.result.text)), ajv.errorsText()).toBe(true);
  });
});

describe('text on the token loop', () => {
  it('json_schema: the answer parses and validates; logprobs come with every piece', async () => {
    for (const seed of [1, 2, 3]) {
      const { result, deltas } = await turn({ response_format: { type: 'json_schema', json_schema: { name: 'w', schema: weatherParams } }, logprobs: true, top_logprobs: 2 }, ownTextAnswer, undefined, seed);
      expect(result.finishReason).toBe('stop');
      expect(ajv.validate(weatherParams, JSON.parse(result.text)), ajv.errorsText()).toBe(true);
      expect(deltas.map((d) => d.content).join('')).toBe(result.text);
      expect(deltas.flatMap((d) => d.logprobs ?? [])).toEqual(result.logprobs);
      expect(result.logprobs!.length).toBe(result.completionTokens);
    }
  });

  it('tool_choice none: the tools are documented, no call is made', async () => {
    const plain = await turn({ logprobs: true, max_tokens: 20 }, ownTextAnswer);
    const none = await turn({ tools, tool_choice: 'none', max_tokens: 20 }, ownTextAnswer);
    expect(none.result.toolCalls).toBeUndefined();
    expect(none.result.promptTokens).toBeGreaterThan(plain.result.promptTokens + 50);
  });
});
