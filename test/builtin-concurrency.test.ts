// The built-in engine under load, through the real gateway: requests up to --parallel
// ([slot].workers) generate at once on sequences of one context, the rest wait their turn,
// and a client that leaves stops its generation and frees its sequence. The engine's own
// log (one line per request, src/engines/builtin/request-log.ts) says what it did.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startGateway, type Gateway } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { EventReader } from './helpers/sse.js';
import { waitFor } from './helpers/wait.js';

let gw: Gateway;
let client: OpenAI;

beforeAll(async () => {
  // Two sequences of 8192 tokens each: long enough that an ignore_eos stream is still
  // generating when the test is done looking at it.
  const home = await homeWithTinySlots([{ name: 'pair', provider: 'builtin', contextSize: 16384, extra: 'workers = 2' }]);
  gw = await startGateway(home.home, { env: { PATH: '/usr/bin:/bin' } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'anything' });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

const hi = [{ role: 'user' as const, content: 'hello there' }];
const engineLog = async () => ((await api(gw.url, '/api/slots/pair/logs?lines=500')).json.lines as string[]).filter((l) => /^(chat|completion|chat\/completions): /.test(l));

/** The engine's line for a request that found every sequence busy, logged after `before` lines. */
const queuedLine = async (before: number) => (await engineLog()).slice(before).find((l) => l.includes('sequences busy; waiting in the queue'));

/** A long streaming chat (it would run to the end of its 8192-token context) and its reader. */
async function longStream() {
  const controller = new AbortController();
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, signal: controller.signal,
    body: JSON.stringify({ model: 'pair', messages: hi, max_tokens: 100_000, ignore_eos: true, stream: true }),
  });
  expect(response.status).toBe(200);
  return { events: new EventReader(response.body!.getReader()), leave: () => controller.abort() };
}

describe('--parallel sequences and the queue behind them', () => {
  it('answers more concurrent requests than --parallel, every one in full', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) =>
      client.chat.completions.create({ model: 'pair', messages: hi, max_tokens: 32, seed: i, ignore_eos: true } as never)));
    for (const answer of answers as OpenAI.ChatCompletion[]) {
      expect(answer.usage!.completion_tokens).toBe(32);
      expect(answer.choices[0]!.message.content).toMatch(/\S/);
    }
    expect(new Set((answers as OpenAI.ChatCompletion[]).map((a) => a.choices[0]!.message.content)).size).toBeGreaterThan(1);
    const lines = await engineLog();
    expect(lines.filter((l) => / 32 generated /.test(l))).toHaveLength(5);
  }, 60_000);

  it('two streams generate side by side; a third request waits until a client leaves, and leaving stops generation', async () => {
    const before = (await engineLog()).length;
    const first = await longStream();
    await first.events.nextContent();
    const second = await longStream();
    await second.events.nextContent(); // both sequences are generating now

    let thirdDone = false;
    // ignore_eos: exactly 4 tokens, so its log line is known by them.
    const third = client.chat.completions.create({ model: 'pair', messages: hi, max_tokens: 4, ignore_eos: true } as never).finally(() => (thirdDone = true)) as Promise<OpenAI.ChatCompletion>;
    await waitFor(() => queuedLine(before), { what: 'the engine to queue the third request', timeout: 20_000 });
    // Both streams keep producing while the third request is held in the engine's queue.
    for (let i = 0; i < 20; i++) {
      await first.events.nextContent();
      await second.events.nextContent();
    }
    expect(thirdDone).toBe(false);

    first.leave();
    const answer = await third; // served on the sequence the first stream gave back
    expect(answer.choices[0]!.message.content).toMatch(/\S/);
    second.leave();

    const lines = await waitFor(async () => (await engineLog()).slice(before), { what: 'both streams to be logged as cancelled', until: (all) => all.filter((l) => l.includes('cancelled by the client')).length === 2, timeout: 20_000 });
    const cancelled = lines.filter((l) => l.includes('cancelled by the client'));
    for (const line of cancelled) {
      const generated = Number(/after (\d+) generated tokens/.exec(line)![1]);
      expect(generated).toBeGreaterThan(20);
      expect(generated).toBeLessThan(8000); // stopped long before its context would have ended it
    }
    const thirdLine = lines.find((l) => / 4 generated /.test(l));
    expect(thirdLine).toMatch(/after waiting [\d.]+ ms for a free sequence/);
    await waitFor(async () => (await api(gw.url, '/api/slots/pair')).json.in_flight, { what: 'the slot to have no request in flight', until: (inFlight) => inFlight === 0, timeout: 20_000 });
  }, 60_000);

  it('a client that leaves while queued gives up its place without generating', async () => {
    const before = (await engineLog()).length;
    const first = await longStream();
    await first.events.nextContent();
    const second = await longStream();
    await second.events.nextContent();
    const queued = new AbortController();
    const waiting = fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, signal: queued.signal,
      body: JSON.stringify({ model: 'pair', messages: hi, max_tokens: 4, ignore_eos: true }),
    }).catch((error: Error) => error);
    await waitFor(() => queuedLine(before), { what: 'the engine to queue the request', timeout: 20_000 });
    queued.abort();
    expect(await waiting).toBeInstanceOf(Error);
    // The engine notices the queued client is gone while both sequences are still busy.
    await waitFor(async () => (await engineLog()).slice(before), { what: 'the engine to drop the queued request', until: (lines) => lines.includes('chat/completions: the client left before it was served'), timeout: 20_000 });
    first.leave();
    second.leave();
    await waitFor(async () => (await engineLog()).slice(before), { what: 'both streams to be logged as cancelled', until: (lines) => lines.filter((l) => l.includes('cancelled')).length === 2, timeout: 20_000 });
    // Nothing was generated for the request that left the queue.
    expect((await engineLog()).slice(before).filter((l) => / 4 generated /.test(l))).toEqual([]);
  }, 60_000);
});
