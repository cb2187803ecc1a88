import { describe, expect, it } from 'vitest';
import { completionTokensIn, countContentDeltas, SlotMetrics, TOKEN_EVENTS_MAX } from './metrics.js';

// Chunks as llama-server writes them (one SSE event per write).
const ROLE = 'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1763700000,"id":"chatcmpl-x","model":"tiny","system_fingerprint":"b1-x","object":"chat.completion.chunk"}\n\n';
const delta = (text: string) =>
  `data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":${JSON.stringify(text)}}}],"created":1763700000,"id":"chatcmpl-x","model":"tiny","system_fingerprint":"b1-x","object":"chat.completion.chunk"}\n\n`;
const FINISH = 'data: {"choices":[{"finish_reason":"length","index":0,"delta":{}}],"created":1763700000,"id":"chatcmpl-x","model":"tiny","object":"chat.completion.chunk","timings":{"prompt_n":9,"predicted_n":12}}\n\n';
const DONE = 'data: [DONE]\n\n';
const buf = (s: string) => Buffer.from(s);

describe('countContentDeltas', () => {
  it('counts one per content delta; role-only, finish and [DONE] chunks count 0', () => {
    expect(countContentDeltas(buf(ROLE))).toBe(0);
    expect(countContentDeltas(buf(delta(' his')))).toBe(1);
    expect(countContentDeltas(buf(FINISH))).toBe(0);
    expect(countContentDeltas(buf(DONE))).toBe(0);
  });

  it('counts several events in one chunk, skips empty strings and escaped look-alikes', () => {
    expect(countContentDeltas(buf(delta(' a') + delta('') + delta('"content":"x') + ROLE))).toBe(2);
  });

  it('counts completion text deltas and reasoning deltas', () => {
    expect(countContentDeltas(buf('data: {"choices":[{"text":" upon","index":0,"logprobs":null,"finish_reason":null}],"object":"text_completion"}\n\n'))).toBe(1);
    expect(countContentDeltas(buf('data: {"choices":[{"text":"","index":0,"finish_reason":"length"}]}\n\n'))).toBe(0);
    expect(countContentDeltas(buf('data: {"choices":[{"delta":{"reasoning_content":"hmm"}}]}\n\n'))).toBe(1);
  });

  it('needs an SSE data line: a plain JSON answer counts 0', () => {
    expect(countContentDeltas(buf('{"choices":[{"message":{"content":"hello"}}]}'))).toBe(0);
  });

  it('a delta whose needle is split across two chunks is missed (documented limit)', () => {
    const event = delta(' his');
    const cut = event.indexOf('"content"') + 4;
    expect(countContentDeltas(buf(event.slice(0, cut))) + countContentDeltas(buf(event.slice(cut)))).toBe(0);
    // split anywhere else, it counts once
    const late = event.indexOf(' his') + 2;
    expect(countContentDeltas(buf(event.slice(0, late))) + countContentDeltas(buf(event.slice(late)))).toBe(1);
  });
});

describe('completionTokensIn', () => {
  it('reads usage.completion_tokens from the tail of a JSON answer', () => {
    expect(completionTokensIn(buf('"usage":{"completion_tokens":16,"prompt_tokens":9,"total_tokens":25},"id":"x"}'))).toBe(16);
    expect(completionTokensIn(buf('"usage":{"prompt_tokens":9}}'))).toBe(0);
    expect(completionTokensIn(buf('"completion_tokens":'))).toBe(0);
  });
});

describe('SlotMetrics', () => {
  const clock = () => {
    let t = 1_000_000;
    return { now: () => t, set: (ms: number) => (t = ms), add: (ms: number) => (t += ms) };
  };

  it('rate: tokens in the last 5 s ÷ max(span, now − last event); fewer than 2 events gives 0', () => {
    const c = clock();
    const m = new SlotMetrics(c.now);
    expect(m.tokensPerSecond('chat')).toBe(0);
    m.recordTokens('chat', 10, 1_000_000);
    expect(m.tokensPerSecond('chat')).toBe(0);
    m.recordTokens('chat', 10, 1_002_000);
    c.set(1_002_000);
    expect(m.tokensPerSecond('chat')).toBe(10); // 20 tokens over a 2 s span
    c.set(1_006_000); // the first event left the window: one event
    expect(m.tokensPerSecond('chat')).toBe(0);
    m.recordTokens('chat', 5, 1_006_500);
    c.set(1_006_500);
    expect(m.tokensPerSecond('chat')).toBeCloseTo(15 / 4.5);
    m.recordTokens('chat', 5, 1_007_000);
    c.set(1_007_000);
    expect(m.tokensPerSecond('chat')).toBe(4); // 20 tokens from 1_002_000 (the window's edge counts) over 5 s
    c.set(1_011_000); // idle: now − last event (4 s) beats the span, so the rate decays
    expect(m.tokensPerSecond('chat')).toBe(2.5);
    c.set(1_011_600); // 1_006_500 left the window: one event
    expect(m.tokensPerSecond('chat')).toBe(0);
    expect(m.tokensPerSecond('other')).toBe(0);
  });

  it('keeps at most 4096 token events', () => {
    const c = clock();
    const m = new SlotMetrics(c.now);
    for (let i = 0; i < TOKEN_EVENTS_MAX + 100; i++) m.recordTokens('chat', 1, 1_000_000 + i);
    c.set(1_000_000 + TOKEN_EVENTS_MAX + 99);
    // 4096 events over 4095 ms
    expect(m.tokensPerSecond('chat')).toBeCloseTo(TOKEN_EVENTS_MAX / 4.095);
  });

  it('a streamed request through a tap: TTFT at the first delta, tokens per delta, latency at the end', () => {
    const c = clock();
    const m = new SlotMetrics(c.now);
    const tap = m.start('chat');
    tap.head(200, 'text/event-stream');
    c.add(100);
    tap.chunk(buf(ROLE));
    c.add(150);
    tap.chunk(buf(delta('a')));
    c.add(50);
    tap.chunk(buf(delta('b') + delta('c')));
    tap.chunk(buf(FINISH + DONE));
    c.add(10);
    tap.end('ok');
    tap.end('error', 'ignored');
    const s = m.snapshot('chat');
    expect(s.requests).toEqual({ ok: 1, error: 0, cancelled: 0 });
    expect(s.tokens_total).toBe(3);
    expect(s.ttft_ms_avg).toBe(250);
    expect(s.latency_ms_p50).toBe(310);
    expect(s.tokens_per_second).toBeCloseTo(3 / 0.05, 0);
  });

  it('a JSON answer: completion_tokens from the tail only; engine errors and cancels', () => {
    const c = clock();
    const m = new SlotMetrics(c.now);
    const tap = m.start('chat');
    tap.head(200, 'application/json; charset=utf-8');
    tap.chunk(buf(`{"choices":[{"message":{"content":"${'x'.repeat(5000)}"}}],`));
    tap.chunk(buf('"usage":{"completion_tokens":16,"prompt_tokens":9,"total_tokens":25},"timings":{"predicted_n":16}}'));
    tap.end('ok');
    expect(m.snapshot('chat').tokens_total).toBe(16);
    const failing = m.start('chat');
    failing.head(500, 'application/json');
    failing.end('ok');
    m.start('chat').end('error', 'dispatch.upstream_unreachable');
    m.start('chat').end('cancelled');
    const s = m.snapshot('chat');
    expect(s.requests).toEqual({ ok: 1, error: 2, cancelled: 1 });
    expect(s.errors).toEqual({ http_500: 1, 'dispatch.upstream_unreachable': 1 });
  });
});
