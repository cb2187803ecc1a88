// Per-slot request metrics, counted on the side of the /v1 hot path: requests by outcome,
// errors by code, latency and time-to-first-token samples, and a tokens-per-second rate from
// a deque of (monotonic time, tokens) events (docs/api.md, "GET /api/metrics"). Nothing here
// changes a byte that is relayed; prom-client lives in server/routes/metrics.ts.
import type { SlotMetricsSnapshot } from '../protocol/slots.js';
import { performance } from 'node:perf_hooks';

/** How a request to a slot ended: answered, failed, or the client left first. */
export type Outcome = 'ok' | 'error' | 'cancelled';

/** Most token events kept per slot (a bound on memory). */
export const TOKEN_EVENTS_MAX = 4096;
/** The tokens-per-second window. */
export const RATE_WINDOW_MS = 5_000;
/** Latency and TTFT samples kept per slot for /api/status (avg, p50). */
export const SAMPLES_MAX = 512;
/** Bytes of a non-streaming answer kept to find `"completion_tokens":N` at its end. */
export const TAIL_BYTES = 1024;

const DATA = Buffer.from('data:');
const CONTENT = Buffer.from('"content":"');
const REASONING = Buffer.from('"reasoning_content":"');
const TEXT = Buffer.from('"text":"');
const COMPLETION_TOKENS = Buffer.from('"completion_tokens":');
const QUOTE = 0x22;

function countNonEmpty(chunk: Buffer, needle: Buffer): number {
  let count = 0;
  let at = chunk.indexOf(needle);
  while (at !== -1) {
    const next = at + needle.length;
    // `"content":""` is an empty delta; a string that starts right after the needle is one.
    if (next < chunk.length && chunk[next] !== QUOTE) count++;
    at = chunk.indexOf(needle, next);
  }
  return count;
}

/**
 * Content deltas in one relayed chunk of an SSE stream: each non-empty `"content":"…"`
 * (chat; `"reasoning_content":"…"` too, the thinking tokens) or `"text":"…"` (completions).
 * `"content":null`, `"content":""`, the role-only first chunk and `[DONE]` count 0. A plain
 * Buffer.indexOf scan, no JSON parsing: inside a JSON string a quote is escaped, so a
 * needle cannot match inside generated text. llama-server sends one token per event, so a
 * delta is counted as one token (an approximation for engines that batch). A needle split
 * across two chunks is missed; llama-server writes each event whole, so this is rare.
 */
export function countContentDeltas(chunk: Buffer): number {
  if (chunk.indexOf(DATA) === -1) return 0;
  return countNonEmpty(chunk, CONTENT) + countNonEmpty(chunk, REASONING) + countNonEmpty(chunk, TEXT);
}

/** `"completion_tokens":N` in the tail of a JSON answer, or 0 when it is not there. */
export function completionTokensIn(tail: Buffer): number {
  const at = tail.lastIndexOf(COMPLETION_TOKENS);
  if (at === -1) return 0;
  let i = at + COMPLETION_TOKENS.length;
  while (i < tail.length && tail[i] === 0x20) i++;
  let n = 0;
  let digits = 0;
  for (; i < tail.length && tail[i]! >= 0x30 && tail[i]! <= 0x39; i++, digits++) n = n * 10 + (tail[i]! - 0x30);
  return digits > 0 ? n : 0;
}

/** A fixed ring of numbers: the newest SAMPLES_MAX samples. */
class Samples {
  private readonly values: Float64Array;
  private next = 0;
  size = 0;
  constructor(capacity: number) {
    this.values = new Float64Array(capacity);
  }
  push(value: number): void {
    this.values[this.next] = value;
    this.next = (this.next + 1) % this.values.length;
    if (this.size < this.values.length) this.size++;
  }
  average(): number | null {
    if (this.size === 0) return null;
    let sum = 0;
    for (let i = 0; i < this.size; i++) sum += this.values[i]!;
    return sum / this.size;
  }
  quantile(q: number): number | null {
    if (this.size === 0) return null;
    const sorted = Array.from(this.values.subarray(0, this.size)).sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  }
}

/** The token events of one slot: a ring of (monotonic ms, tokens), newest last. */
class TokenEvents {
  private readonly at = new Float64Array(TOKEN_EVENTS_MAX);
  private readonly tokens = new Float64Array(TOKEN_EVENTS_MAX);
  private next = 0;
  private size = 0;
  push(at: number, tokens: number): void {
    this.at[this.next] = at;
    this.tokens[this.next] = tokens;
    this.next = (this.next + 1) % TOKEN_EVENTS_MAX;
    if (this.size < TOKEN_EVENTS_MAX) this.size++;
  }
  /** Tokens in the last 5 s ÷ max(span of those events, now − last event); < 2 events → 0. */
  rate(now: number): number {
    let count = 0;
    let tokens = 0;
    let newest = 0;
    let oldest = 0;
    for (let k = 0; k < this.size; k++) {
      const i = (this.next - 1 - k + TOKEN_EVENTS_MAX) % TOKEN_EVENTS_MAX;
      const at = this.at[i]!;
      if (at < now - RATE_WINDOW_MS) break;
      if (count === 0) newest = at;
      oldest = at;
      tokens += this.tokens[i]!;
      count++;
    }
    if (count < 2) return 0;
    const seconds = Math.max(newest - oldest, now - newest) / 1000;
    return seconds > 0 ? tokens / seconds : 0;
  }
}

class SlotCounters {
  readonly requests: Record<Outcome, number> = { ok: 0, error: 0, cancelled: 0 };
  readonly errors = new Map<string, number>();
  readonly latencyMs = new Samples(SAMPLES_MAX);
  readonly ttftMs = new Samples(SAMPLES_MAX);
  readonly events = new TokenEvents();
  tokensTotal = 0;
}

export type { SlotMetricsSnapshot };

/** Called for every latency and TTFT sample (the Prometheus histograms subscribe). */
export interface SampleListener {
  latency(slot: string, ms: number): void;
  ttft(slot: string, ms: number): void;
  /** The slot is gone (deleted, or removed from the configuration): drop its series. */
  forget?(slot: string): void;
}

export class SlotMetrics {
  private readonly bySlot = new Map<string, SlotCounters>();
  private readonly listeners = new Set<SampleListener>();

  /** Monotonic milliseconds; injectable for tests. */
  constructor(readonly now: () => number = () => performance.now()) {}

  private counters(slot: string): SlotCounters {
    let counters = this.bySlot.get(slot);
    if (!counters) this.bySlot.set(slot, (counters = new SlotCounters()));
    return counters;
  }

  /** Start metering one request to a slot (one per upstream request). */
  start(slot: string, startedAt = this.now()): MeterTap {
    return new MeterTap(this, slot, startedAt);
  }

  listen(listener: SampleListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  recordTokens(slot: string, tokens: number, at = this.now()): void {
    if (tokens <= 0) return;
    const counters = this.counters(slot);
    counters.events.push(at, tokens);
    counters.tokensTotal += tokens;
  }

  recordTtft(slot: string, ms: number): void {
    this.counters(slot).ttftMs.push(ms);
    for (const listener of this.listeners) listener.ttft(slot, ms);
  }

  recordRequest(slot: string, outcome: Outcome, latencyMs: number, code?: string): void {
    const counters = this.counters(slot);
    counters.requests[outcome]++;
    if (outcome === 'error') counters.errors.set(code ?? 'unknown', (counters.errors.get(code ?? 'unknown') ?? 0) + 1);
    if (outcome === 'cancelled') return; // a client leaving says nothing about the engine's latency
    counters.latencyMs.push(latencyMs);
    for (const listener of this.listeners) listener.latency(slot, latencyMs);
  }

  tokensPerSecond(slot: string, now = this.now()): number {
    return this.bySlot.get(slot)?.events.rate(now) ?? 0;
  }

  /** Drop a slot's figures: it was deleted, and a scrape must not show it any more. */
  forget(slot: string): void {
    if (!this.bySlot.delete(slot)) return;
    for (const listener of this.listeners) listener.forget?.(slot);
  }

  /** Slots with any recorded metrics. */
  slots(): string[] {
    return [...this.bySlot.keys()];
  }

  snapshot(slot: string, now = this.now()): SlotMetricsSnapshot {
    const counters = this.bySlot.get(slot);
    const round = (value: number | null) => (value === null ? null : Math.round(value * 10) / 10);
    return {
      requests: { ...(counters?.requests ?? { ok: 0, error: 0, cancelled: 0 }) },
      errors: Object.fromEntries(counters?.errors ?? []),
      tokens_total: counters?.tokensTotal ?? 0,
      tokens_per_second: round(counters?.events.rate(now) ?? 0) ?? 0,
      ttft_ms_avg: round(counters?.ttftMs.average() ?? null),
      latency_ms_avg: round(counters?.latencyMs.average() ?? null),
      latency_ms_p50: round(counters?.latencyMs.quantile(0.5) ?? null),
    };
  }
}

/**
 * One request's meter, fed by the forwarder: head() once the engine answers, chunk() per
 * relayed chunk, end() once (later calls are ignored). An SSE answer counts content
 * deltas per chunk (the first one records TTFT, from the request's start, slot loading
 * included); a JSON answer keeps only its last TAIL_BYTES and reads `"completion_tokens"`
 * from them at the end. An engine status ≥ 400 counts as an error `http_<status>`.
 */
export class MeterTap {
  private sse = false;
  private status = 0;
  private firstToken = false;
  private tail: Buffer | undefined;
  private ended = false;

  constructor(
    private readonly metrics: SlotMetrics,
    readonly slot: string,
    /** When the request arrived (monotonic ms): latency and TTFT count from here, slot loading included. */
    readonly startedAt: number,
  ) {}

  head(statusCode: number, contentType: string | string[] | undefined): void {
    this.status = statusCode;
    this.sse = typeof contentType === 'string' && contentType.startsWith('text/event-stream');
  }

  chunk(data: Buffer | Uint8Array): void {
    const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (this.sse) {
      const tokens = countContentDeltas(chunk);
      if (tokens === 0) return;
      const now = this.metrics.now();
      if (!this.firstToken) {
        this.firstToken = true;
        this.metrics.recordTtft(this.slot, now - this.startedAt);
      }
      this.metrics.recordTokens(this.slot, tokens, now);
      return;
    }
    if (chunk.length >= TAIL_BYTES) this.tail = chunk.subarray(chunk.length - TAIL_BYTES);
    else if (!this.tail) this.tail = chunk;
    else {
      const joined = Buffer.concat([this.tail, chunk]);
      this.tail = joined.length > TAIL_BYTES ? joined.subarray(joined.length - TAIL_BYTES) : joined;
    }
  }

  end(outcome: Outcome, code?: string): void {
    if (this.ended) return;
    this.ended = true;
    const now = this.metrics.now();
    if (outcome === 'ok' && this.status >= 400) {
      outcome = 'error';
      code = `http_${this.status}`;
    }
    if (outcome === 'ok' && !this.sse && this.tail) this.metrics.recordTokens(this.slot, completionTokensIn(this.tail), now);
    this.metrics.recordRequest(this.slot, outcome, now - this.startedAt, code);
  }
}
