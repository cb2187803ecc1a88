// The official openai client's own parsers, fed what this folder produces: its stream
// accumulator (client.responses.stream(), finalResponse(), output_text) reads our events,
// and responses.create() our Response object. A tiny local HTTP server stands in for the
// route: it reads the client's request through planChat, answers with a canned chat
// completion translated by responseFromChat or ResponsesStream, framed as the route does.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseFromChat } from './answer.js';
import { newResponseId } from './ids.js';
import { planChat } from './request.js';
import { ResponsesStream } from './stream.js';
import type { ChatPlan, Json } from './types.js';

const chunk = (delta: Json, finish: string | null = null): Json => ({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
const chatChunks: Json[] = [
  chunk({ role: 'assistant', content: null }),
  chunk({ reasoning_content: 'Oslo first.' }),
  chunk({ content: 'Checking ' }),
  chunk({ content: 'the weather.' }),
  chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city"' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: ':"Oslo"}' } }] }),
  chunk({}, 'tool_calls'),
  { object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 } },
];
const chatAnswer: Json = { object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'It is 12C in Oslo.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 30, completion_tokens: 6, total_tokens: 36 } };

let server: Server;
let client: OpenAI;
const plans: ChatPlan[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (text += piece));
    req.on('end', () => {
      const body = JSON.parse(text) as Json;
      let plan: ChatPlan;
      try {
        plan = planChat(body, []);
      } catch (error) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'request.invalid', message: (error as Error).message } }));
        return;
      }
      plans.push(plan);
      const meta = { id: newResponseId(), createdAt: Math.floor(Date.now() / 1000), model: String(body.model), echo: plan.echo };
      if (body.stream !== true) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(responseFromChat(meta, chatAnswer)));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const stream = new ResponsesStream(meta, (event) => res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`));
      stream.start();
      const failAfter = (body.metadata as Json | undefined)?.fail_after;
      for (const [index, c] of chatChunks.entries()) {
        if (String(index) === failAfter) break;
        stream.chunk(c);
      }
      if (failAfter === undefined) stream.finish();
      else stream.fail({ code: 'dispatch.upstream_unreachable', message: 'the engine hung up' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new OpenAI({ apiKey: 'unused', baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, maxRetries: 0 });
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];

describe('the official openai client', () => {
  it('accumulates our stream: finalResponse(), output_text and the delta snapshots', async () => {
    const stream = client.responses.stream({ model: 'tiny', instructions: 'Be brief.', input: 'Weather in Oslo?', tools });
    const snapshots: string[] = [];
    stream.on('response.output_text.delta', (event) => snapshots.push(event.snapshot));
    const final = await stream.finalResponse();

    expect(snapshots).toEqual(['Checking ', 'Checking the weather.']);
    expect(final.output_text).toBe('Checking the weather.');
    expect(final.status).toBe('completed');
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(final.output[2]).toMatchObject({ type: 'function_call', call_id: 'call_a', name: 'weather', arguments: '{"city":"Oslo"}', status: 'completed' });
    expect(final.usage).toMatchObject({ input_tokens: 12, output_tokens: 8, total_tokens: 20 });
    expect(final.tools).toEqual([{ type: 'function', name: 'weather', description: null, parameters: tools[0]!.type === 'function' ? tools[0]!.parameters : null, strict: false }]);
    expect(plans.at(-1)!.chat.messages).toEqual([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Weather in Oslo?' }]);
  });

  it('sends back our output items with a function_call_output, and planChat reads them as the chat turn they were', async () => {
    const first = await client.responses.stream({ model: 'tiny', input: 'Weather in Oslo?', tools }).finalResponse();
    const call = first.output.find((item) => item.type === 'function_call')!;
    const answer = await client.responses.create({
      model: 'tiny',
      tools,
      // As OpenAI's docs do it: the output items go back as input (the SDK's types disagree only for hosted tools' items).
      input: [{ role: 'user', content: 'Weather in Oslo?' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '12C' }],
    });

    expect(answer.output_text).toBe('It is 12C in Oslo.');
    expect(answer.usage?.total_tokens).toBe(36);
    expect(plans.at(-1)!.chat.messages).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: 'Checking the weather.', tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'call_a', content: '12C' },
    ]);
  });

  it('reads a failed stream: finalResponse() is the failed response, with the error and the text so far', async () => {
    const final = await client.responses.stream({ model: 'tiny', input: 'Weather in Oslo?', metadata: { fail_after: '4' } }).finalResponse();
    expect(final.status).toBe('failed');
    expect(final.error).toEqual({ code: 'dispatch.upstream_unreachable', message: 'the engine hung up' });
    expect(final.output_text).toBe('Checking the weather.');
  });

  it('gets our 400 as an error naming the path', async () => {
    await expect(client.responses.create({ model: 'tiny', input: 'hi', tools, tool_choice: { type: 'function', name: 'clock' } })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('tool_choice.name') });
  });
});
