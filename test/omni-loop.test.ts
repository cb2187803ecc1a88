// omni: true, the tool loop on the server, against a scripted OpenAI-compatible upstream
// (tool_calling = true) and the real MCP fixture server over stdio (tools echo, add, sleep,
// fail), supervised by the gateway: two rounds with parallel calls, a tool error and a
// timeout fed back to the model, the round cap, a client tool ending the loop, and the
// stream consumed by the official openai client and the Vercel AI SDK.
import { createOpenAI } from '@ai-sdk/openai';
import { streamText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startGateway, tempHome, type Gateway } from './helpers/gateway.js';
import { FIXTURE_SERVER } from './helpers/mcp.js';
import { startScriptedUpstream, type ScriptedUpstream } from './helpers/scripted-upstream.js';
import { EventReader, sseData } from './helpers/sse.js';
import { waitFor } from './helpers/wait.js';

const FINAL = 'The echo said hi, and 2 + 3 is 5.';
let gw: Gateway;
let upstream: ScriptedUpstream;
/** An upstream whose entry does not say tool_calling: omni does not run on it. */
let untooled: ScriptedUpstream;

type Message = { role: string; content: string | null; tool_call_id?: string; tool_calls?: unknown[] };

beforeAll(async () => {
  upstream = await startScriptedUpstream({
    'two-rounds': { rounds: [{ tool_calls: [{ name: 'fixture__echo', arguments: { message: 'hi' } }, { name: 'fixture__add', arguments: { a: 2, b: 3 } }] }, { content: FINAL }] },
    failing: { rounds: [{ tool_calls: [{ name: 'fixture__fail' }] }, { content: 'I saw the failure.' }] },
    slow: { rounds: [{ tool_calls: [{ name: 'fixture__sleep', arguments: { ms: 60_000 } }] }, { content: 'It timed out.' }] },
    forever: { always: { tool_calls: [{ name: 'fixture__echo', arguments: { message: 'again' } }] } },
    gated: { rounds: [{ tool_calls: [{ name: 'gatekeeper__echo', arguments: { message: 'let me through' } }] }, { content: 'The gate answered.' }] },
    hanging: { rounds: [{ tool_calls: [{ name: 'fixture__echo', arguments: { message: 'x' } }] }, { hang: true }] },
    'client-tool': { rounds: [{ tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }] },
  });
  untooled = await startScriptedUpstream({ 'no-tools': { rounds: [{ tool_calls: [{ name: 'fixture__echo', arguments: { message: 'hi' } }] }] } });
  const home = tempHome({
    'svc.toml': '[mcp]\nmax_rounds = 3\ntool_timeout_s = 2\n',
    'upstreams.toml': `${upstream.toml('script')}\n${untooled.toml('untooled').replace('tool_calling = true', 'tool_calling = false')}`,
    'mcp-servers/fixture.toml': `name = "fixture"\ntransport = "stdio"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FIXTURE_SERVER)}]\n\n[tools]\n`,
    // The same fixture again, its echo gated: a call waits in the approvals queue.
    'mcp-servers/gatekeeper.toml': `name = "gatekeeper"\ntransport = "stdio"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FIXTURE_SERVER)}]\n\n[tools]\ngated = ["echo"]\n`,
  });
  gw = await startGateway(home.home);
  // The fixture server starts after the gateway listens; until it is ready there is no tool to offer.
  await waitFor(async () => (await api(gw.url, '/api/mcp/servers')).json?.servers?.filter((s: { state: string; bundled: boolean }) => !s.bundled && s.state === 'ready').length, {
    what: 'both fixture tool servers to be ready', timeout: 30_000, interval: 200, until: (ready) => ready === 2,
  });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  upstream?.stop();
  untooled?.stop();
});

const user = [{ role: 'user', content: 'Use the tools.' }];
const chat = (body: Record<string, unknown>) => api(gw.url, '/v1/chat/completions', { method: 'POST', body: { messages: user, omni: true, ...body } });

/** The messages the loop sent the model in its last call. */
async function lastMessages(): Promise<Message[]> {
  const requests = await upstream.requests();
  return requests.at(-1)!.messages as Message[];
}

describe('the omni loop', () => {
  it('runs two rounds: the parallel tool calls of the first fed back, the final text answered with svc_omni', async () => {
    await upstream.forget();
    const answer = await chat({ model: 'two-rounds' });
    expect(answer.status).toBe(200);
    expect(answer.json.choices[0].message.content).toBe(FINAL);
    expect(answer.json.svc_omni.rounds).toBe(2);
    expect(answer.json.svc_omni.tool_calls.map((c: { name: string; ok: boolean }) => [c.name, c.ok]).sort()).toEqual([['fixture__add', true], ['fixture__echo', true]]);
    const requests = await upstream.requests();
    expect(requests).toHaveLength(2);
    const offered = (requests[0]!.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(offered).toEqual(expect.arrayContaining(['fixture__echo', 'fixture__add', 'fixture__sleep', 'fixture__fail']));
    const messages = requests[1]!.messages as Message[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(messages[1]!.tool_calls).toHaveLength(2);
    expect(messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content])).toEqual([['call_0_0', 'hi'], ['call_0_1', '5']]);
  });

  it('feeds a tool\'s error back to the model as its result', async () => {
    const answer = await chat({ model: 'failing' });
    expect(answer.status).toBe(200);
    expect(answer.json.choices[0].message.content).toBe('I saw the failure.');
    expect(answer.json.svc_omni.tool_calls).toEqual([expect.objectContaining({ name: 'fixture__fail', ok: false })]);
    expect((await lastMessages()).at(-1)!.content).toContain('the fixture failed on purpose');
  });

  it('feeds a tool that outlives [mcp].tool_timeout_s back as a timeout', async () => {
    const answer = await chat({ model: 'slow' });
    expect(answer.status).toBe(200);
    expect(answer.json.choices[0].message.content).toBe('It timed out.');
    expect(answer.json.svc_omni.tool_calls).toEqual([expect.objectContaining({ name: 'fixture__sleep', ok: false })]);
    expect((await lastMessages()).at(-1)!.content).toMatch(/^Error: .*(timeout|did not answer|timed out)/i);
  });

  it('ends with omni.max_rounds when the model still asks for tools after [mcp].max_rounds', async () => {
    await upstream.forget();
    const answer = await chat({ model: 'forever' });
    expect(answer.status).toBe(502);
    expect(answer.json.error.code).toBe('omni.max_rounds');
    expect(answer.json.error.details.rounds).toBe(3);
    expect(answer.json.error.details.tool_calls).toHaveLength(3);
    expect(await upstream.requests()).toHaveLength(3);
  });

  it('ends the round cap of a stream with one SSE error event after the head', async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'forever', messages: user, omni: true, stream: true }) });
    expect(res.status).toBe(200);
    const text = await res.text();
    const last = JSON.parse(text.trim().split('\n\n').at(-1)!.replace(/^data: /, '')) as { error: { code: string } };
    expect(last.error.code).toBe('omni.max_rounds');
    expect(text).not.toContain('[DONE]');
  });

  it('sends the request once, unchanged but for omni, to a target that cannot call tools', async () => {
    const answer = await chat({ model: 'no-tools' });
    expect(answer.status).toBe(200);
    expect(answer.json).not.toHaveProperty('svc_omni');
    expect(answer.json.id).toBe('chatcmpl-scripted');
    expect(answer.json.choices[0].message.tool_calls[0].function.name).toBe('fixture__echo'); // the model's answer as it is
    const [sent] = await untooled.requests();
    expect(sent).toEqual({ model: 'no-tools', messages: user });
  });

  it('ends the loop when the model calls a client tool: the client gets that round as usual', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const answer = await chat({ model: 'client-tool', tools });
    expect(answer.status).toBe(200);
    expect(answer.json.choices[0].finish_reason).toBe('tool_calls');
    expect(answer.json.choices[0].message.tool_calls[0].function.name).toBe('get_weather');
    const offered = ((await upstream.requests()).at(-1)!.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(offered).toEqual(expect.arrayContaining(['get_weather', 'fixture__echo']));
  });

  it('streams every round in one stream: tool-call deltas, svc_tool steps, the final text and [DONE]', async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'two-rounds', messages: user, omni: true, stream: true, stream_options: { include_usage: true } }) });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const events = sseData(await res.text());
    expect(events.at(-1)).toBe('[DONE]');
    expect(events.filter((e) => e === '[DONE]')).toHaveLength(1);
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as { id: string; choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>; usage?: unknown });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    const steps = chunks.map((c) => c.choices[0]?.delta.svc_tool as { name: string; status: string; duration_ms?: number } | undefined).filter((s) => s !== undefined);
    expect(steps.map((s) => `${s.name}:${s.status}`).sort()).toEqual(['fixture__add:done', 'fixture__add:running', 'fixture__echo:done', 'fixture__echo:running']);
    // The tool-call deltas came as normal chunks, before the steps; the text after them.
    const firstStep = chunks.findIndex((c) => c.choices[0]?.delta.svc_tool);
    expect(chunks.slice(0, firstStep).some((c) => Array.isArray(c.choices[0]?.delta.tool_calls))).toBe(true);
    expect(chunks.slice(firstStep).map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(FINAL);
    // One finish (the final round's), one usage-only chunk (the final round's).
    expect(chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter((f) => f !== null)).toEqual(['stop']);
    expect(chunks.filter((c) => c.choices.length === 0 && c.usage)).toHaveLength(1);
  });

  it('aborts the model call in flight when the client leaves', async () => {
    await upstream.forget();
    const controller = new AbortController();
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', signal: controller.signal, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'hanging', messages: user, omni: true, stream: true }) });
    const reader = new EventReader(res.body!.getReader());
    // Past the tool's done step, the second round's first chunk: the model call is in flight.
    let seenDone = false;
    for (let data = await reader.next(); data !== null; data = await reader.next()) {
      const delta = JSON.parse(data).choices?.[0]?.delta;
      if (delta?.svc_tool?.status === 'done') seenDone = true;
      else if (seenDone && delta?.role === 'assistant') break;
    }
    controller.abort();
    const requests = await waitFor(() => upstream.requests(), { what: 'the upstream to see the second round hung up', until: (r) => r.length === 2 && r[1]!.svc_closed === true });
    expect(requests[0]!.svc_closed).toBeUndefined();
  });

  it('streams to the official openai client, its text equal to what the upstream sent', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'x' });
    const stream = await client.chat.completions.create({ model: 'two-rounds', messages: user, stream: true, omni: true } as never) as unknown as AsyncIterable<OpenAI.Chat.ChatCompletionChunk>;
    let text = '';
    let steps = 0;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string | null; svc_tool?: unknown } | undefined;
      text += delta?.content ?? '';
      if (delta?.svc_tool) steps++;
    }
    expect(text).toBe(FINAL);
    expect(steps).toBe(4);
  });

  it('streams to the Vercel AI SDK without an error, its text equal to what the upstream sent', async () => {
    // The SDK sends what it knows; omni: true goes on the body the way a client adds a vendor field.
    const provider = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'x', fetch: (url, init) => fetch(url, { ...init, body: JSON.stringify({ ...JSON.parse(String(init!.body)), omni: true }) }) });
    const errors: unknown[] = [];
    const result = streamText({ model: provider.chat('two-rounds'), prompt: 'Use the tools.', onError: ({ error }) => void errors.push(error) });
    const parts: string[] = [];
    for await (const part of result.fullStream) parts.push(part.type);
    expect(errors).toEqual([]);
    expect(parts).not.toContain('error');
    expect(await result.text).toBe(FINAL);
  });
});

describe('a gated tool in the loop', () => {
  type Step = { id: string; name: string; status: string; approval_id?: string; error?: string };

  /** Starts a streamed omni request for the gated model; resolves with the reader once the call waits for approval. */
  async function untilWaiting(): Promise<{ reader: EventReader; waiting: Step }> {
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gated', messages: user, omni: true, stream: true }) });
    const reader = new EventReader(res.body!.getReader());
    for (;;) {
      const data = await reader.next();
      if (data === null || data === '[DONE]') throw new Error('the stream ended before the call waited for approval');
      const step = JSON.parse(data).choices?.[0]?.delta?.svc_tool as Step | undefined;
      if (step?.status === 'waiting_approval') return { reader, waiting: step };
    }
  }

  /** The rest of the stream: its steps and its text. */
  async function rest(reader: EventReader): Promise<{ steps: Step[]; text: string; done: boolean }> {
    const steps: Step[] = [];
    let text = '';
    for (let data = await reader.next(); data !== null; data = await reader.next()) {
      if (data === '[DONE]') return { steps, text, done: true };
      const delta = JSON.parse(data).choices?.[0]?.delta;
      if (delta?.svc_tool) steps.push(delta.svc_tool as Step);
      text += delta?.content ?? '';
    }
    return { steps, text, done: false };
  }

  it('waits in the stream (waiting_approval with the approval id) until approved over the API, then runs', async () => {
    const { reader, waiting } = await untilWaiting();
    expect(waiting.name).toBe('gatekeeper__echo');
    const pending = (await api(gw.url, '/api/agent/approvals')).json.approvals as Array<{ id: string; state: string; tool: string }>;
    expect(pending).toContainEqual(expect.objectContaining({ id: waiting.approval_id, state: 'pending', tool: 'gatekeeper__echo' }));
    const approved = await api(gw.url, `/api/agent/approvals/${waiting.approval_id}/approve`, { method: 'POST' });
    expect(approved.status).toBe(200);
    const after = await rest(reader);
    expect(after.steps).toEqual([expect.objectContaining({ id: waiting.id, name: 'gatekeeper__echo', status: 'done' })]);
    expect(after.text).toBe('The gate answered.');
    expect(after.done).toBe(true);
    expect((await lastMessages()).at(-1)).toMatchObject({ role: 'tool', content: 'let me through' });
  });

  it('feeds a denial back to the model as the tool\'s result', async () => {
    const { reader, waiting } = await untilWaiting();
    const denied = await api(gw.url, `/api/agent/approvals/${waiting.approval_id}/deny`, { method: 'POST' });
    expect(denied.status).toBe(200);
    const after = await rest(reader);
    expect(after.steps).toEqual([expect.objectContaining({ id: waiting.id, status: 'failed', error: expect.stringMatching(/denied/) })]);
    expect(after.text).toBe('The gate answered.');
    expect((await lastMessages()).at(-1)!.content).toMatch(/^Error: .*denied/);
  });
});
