// GET /api/metrics and the metrics block of /api/status, after real requests through the
// gateway to a llama-server slot on the tiny model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startGateway, type Gateway } from './helpers/gateway.js';
import { homeWithTinySlots, llamaServerPath, llamaServerSkipReason } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

const LLAMA_SERVER = llamaServerPath();
if (!LLAMA_SERVER) console.warn(llamaServerSkipReason());

let gw: Gateway;

beforeAll(async () => {
  if (!LLAMA_SERVER) return;
  const home = await homeWithTinySlots([{ name: 'chat', contextSize: 1024 }]);
  gw = await startGateway(home.home, { env: { SVC_LLAMA_SERVER: LLAMA_SERVER } });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

const chat = (stream: boolean) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: 'tell me a story' }], max_tokens: 24, stream, ignore_eos: true }),
  });

describe.skipIf(!LLAMA_SERVER)('metrics', () => {
  it('before any request: slot state and in-flight gauges, no requests yet', async () => {
    // The enabled slot starts with the gateway, with no request.
    await waitFor(async () => (await api(gw.url, '/api/slots/chat')).json.state, { what: 'the chat slot to be ready', until: (state) => state === 'ready', timeout: 30_000 });
    const scrape = await api(gw.url, '/api/metrics');
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(scrape.text).toContain('svc_slot_state{slot="chat",state="ready"} 1');
    expect(scrape.text).toContain('svc_slot_in_flight{slot="chat"} 0');
    expect(scrape.text).toContain('svc_slot_requests_total{slot="chat",outcome="ok"} 0');
    expect(scrape.text).toContain('process_cpu_user_seconds_total');
  });

  it('counts a streaming and a non-streaming chat: requests, tokens/s, TTFT, latency, state', async () => {
    const streamed = await (await chat(true)).text();
    expect(streamed.endsWith('data: [DONE]\n\n')).toBe(true);
    const answer = (await (await chat(false)).json()) as { usage: { completion_tokens: number } };
    expect(answer.usage, `the answer: ${JSON.stringify(answer)}\nthe gateway's output: ${gw.output().slice(-2000)}`).toBeDefined();
    expect(answer.usage.completion_tokens).toBeGreaterThan(0);

    const text = (await api(gw.url, '/api/metrics')).text;
    expect(text).toContain('svc_slot_requests_total{slot="chat",outcome="ok"} 2');
    expect(text).toContain('svc_slot_requests_total{slot="chat",outcome="error"} 0');
    expect(text).toContain('svc_slot_state{slot="chat",state="ready"} 1');
    expect(text).toContain('svc_slot_state{slot="chat",state="stopped"} 0');
    // The rate decays over a 5 s window, so its value depends on timing; the rate math is
    // unit-tested with a fake clock (src/dispatch/metrics.test.ts). Here: the gauge exists.
    const rate = /^svc_slot_tokens_per_second\{slot="chat"\} (\S+)$/m.exec(text);
    expect(Number(rate?.[1])).toBeGreaterThanOrEqual(0);
    const tokens = /^svc_slot_tokens_total\{slot="chat"\} (\S+)$/m.exec(text);
    expect(Number(tokens?.[1])).toBeGreaterThanOrEqual(24 + answer.usage.completion_tokens);
    expect(text).toContain('svc_slot_ttft_seconds_count{slot="chat"} 1');
    expect(text).toContain('svc_slot_request_duration_seconds_count{slot="chat"} 2');

    const status = await api(gw.url, '/api/status');
    const row = status.json.slots.slots.find((s: { name: string }) => s.name === 'chat');
    expect(row.state).toBe('ready');
    expect(row.metrics.requests).toEqual({ ok: 2, error: 0, cancelled: 0 });
    expect(row.metrics.ttft_ms_avg).toBeGreaterThan(0);
    expect(row.metrics.latency_ms_p50).toBeGreaterThan(0);
    expect(row.metrics.tokens_total).toBeGreaterThan(0);
  }, 60_000);

  it('an engine error status counts as an error by code', async () => {
    const before = (await api(gw.url, '/api/metrics')).text;
    const errorsBefore = Number(/^svc_slot_requests_total\{slot="chat",outcome="error"\} (\d+)$/m.exec(before)?.[1] ?? 0);
    const bad = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'chat', messages: 'not a list' }),
    });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    const text = (await api(gw.url, '/api/metrics')).text;
    expect(text).toContain(`svc_slot_requests_total{slot="chat",outcome="error"} ${errorsBefore + 1}`);
    expect(text).toMatch(new RegExp(`svc_slot_errors_total\\{slot="chat",code="http_${bad.status}"\\} 1`));
  }, 30_000);
});
