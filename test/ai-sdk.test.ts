// The Vercel AI SDK against svc's built-in engine on the tiny model, through the real
// gateway: its default OpenAI provider (which calls /v1/responses) and its chat-completions
// provider, with generateText, streamText, generateObject (a zod schema) and a tool. The
// SDK validates every answer and stream part with its own schemas, so a field svc leaves
// out or misshapes fails here.
import { createOpenAI } from '@ai-sdk/openai';
import { generateObject, generateText, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startGateway, type Gateway } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';

let gw: Gateway;
let provider: ReturnType<typeof createOpenAI>;

beforeAll(async () => {
  const home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin', contextSize: 2048 }]);
  gw = await startGateway(home.home, { env: { PATH: '/usr/bin:/bin' } });
  provider = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'anything' });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

const person = z.object({ name: z.string().max(10), age: z.number().int().min(0).max(120) });
const city = z.object({ city: z.string().min(1).max(12) });
const weather = tool({ description: 'The weather in a city', inputSchema: city });

// The default provider calls the Responses API; .chat() calls chat completions.
const models = () => [['responses', provider('chat')], ['chat completions', provider.chat('chat')]] as const;

describe.each(['responses', 'chat completions'])('the AI SDK through %s', (api) => {
  const model = () => models().find(([name]) => name === api)![1];

  it('generateText answers text with usage', async () => {
    const result = await generateText({ model: model(), prompt: 'hello there', maxOutputTokens: 12 });
    expect(result.text).toMatch(/\S/);
    expect(result.usage.inputTokens).toBeGreaterThan(3);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  }, 60_000);

  it('streamText streams text that adds up to the final text', async () => {
    const result = streamText({ model: model(), prompt: 'tell me a story', maxOutputTokens: 16 });
    let streamed = '';
    for await (const piece of result.textStream) streamed += piece;
    expect(streamed).toMatch(/\S/);
    expect(await result.text).toBe(streamed);
  }, 60_000);

  it('generateObject gives an object that the zod schema accepts', async () => {
    const result = await generateObject({ model: model(), schema: person, prompt: 'a person', maxOutputTokens: 200, temperature: 1 });
    expect(person.safeParse(result.object).success).toBe(true);
  }, 60_000);

  it('a required tool is called with input that validates', async () => {
    const result = await generateText({ model: model(), prompt: 'weather in Paris?', tools: { weather }, toolChoice: 'required', maxOutputTokens: 200, providerOptions: { openai: { parallelToolCalls: false } } });
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ toolName: 'weather' });
    expect(city.safeParse(result.toolCalls[0]!.input).success).toBe(true);
  }, 60_000);
});
