import { describe, expect, it } from 'vitest';
import { jsonResult, readBody, type DispatchResult } from '../result.js';
import { responsesEvents, responsesResult } from './translate.js';

const meta = { id: 'resp_1', createdAt: 1, model: 'm', echo: {} };

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

const sse = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`;
const delta = (content: string, finish: string | null = null) => ({ choices: [{ index: 0, delta: { content }, finish_reason: finish }] });

/** The events of a Responses stream, by type, and the final response told to onDone. */
async function translated(...parts: string[]) {
  let done: Record<string, unknown> | undefined;
  const text = (await readBody(responsesEvents(chunks(...parts), { meta, onDone: (r) => (done = r) }))).toString('utf8');
  const events = text.split('\n\n').filter((e) => e.startsWith('event: ')).map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)) as { type: string; delta?: string });
  return { text, events, done };
}

describe('responsesEvents', () => {
  it('turns a chat stream split anywhere into the Responses sequence, and tells the final response once', async () => {
    const body = sse(delta('Hel')) + sse(delta('lo', 'stop')) + 'data: [DONE]\n\n';
    const { events, done } = await translated(body.slice(0, 7), body.slice(7, 40), body.slice(40));
    expect(events[0]!.type).toBe('response.created');
    expect(events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('')).toBe('Hello');
    expect(events.at(-1)!.type).toBe('response.completed');
    expect(done?.status).toBe('completed');
  });

  it('keeps the gateway\'s loading comments, and fails the response on the stream\'s error event', async () => {
    const { text, events, done } = await translated(': svc: loading slot chat\n\n', sse(delta('a')), sse({ error: { code: 'dispatch.upstream_unreachable', message: 'gone' } }));
    expect(text).toContain('\n\n:svc: loading slot chat\n\n');
    expect(events.at(-1)!.type).toBe('response.failed');
    expect((done?.error as { code: string }).code).toBe('dispatch.upstream_unreachable');
  });
});

describe('responsesResult', () => {
  it('answers a chat completion as a Response object, and passes a 5xx through unchanged', async () => {
    const chat = jsonResult(200, { choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] }, { 'server-timing': 'svc;dur=1' });
    const answer = await responsesResult(chat, { stream: false, meta, onDone: () => undefined });
    expect(answer.headers['server-timing']).toBe('svc;dur=1');
    const response = JSON.parse((await readBody(answer.body)).toString('utf8')) as { object: string; output: Array<{ content: Array<{ text: string }> }> };
    expect(response.object).toBe('response');
    expect(response.output[0]!.content[0]!.text).toBe('hi');
    const failed: DispatchResult = jsonResult(503, { error: { code: 'upstream.unavailable', message: 'busy', details: {} } });
    expect(await responsesResult(failed, { stream: false, meta, onDone: () => undefined })).toBe(failed);
  });
});
