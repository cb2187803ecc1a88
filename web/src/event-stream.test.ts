// The reconnection logic of the dashboard's event stream, against a scripted fetch: each
// connection is a stream this test writes to and ends, and the back-off timer is run by hand.
import { describe, expect, it } from 'vitest';
import { EventStreamClient, reconnectDelay, type StreamStatus } from './event-stream.js';
import type { SvcEvent } from '../../src/protocol/events.js';

interface Connection {
  headers: Record<string, string>;
  send(text: string): void;
  end(): void;
}

function harness() {
  const connections: Connection[] = [];
  const answers: Array<() => Response> = [];
  const timers: Array<{ fn: () => void; ms: number }> = [];
  const events: SvcEvent[] = [];
  const statuses: StreamStatus[] = [];
  const resyncs: boolean[] = [];
  let waiting: (() => void) | null = null;
  const fakeFetch = (async (_url: string, init?: RequestInit) => {
    const scripted = answers.shift();
    if (scripted) return scripted();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
    const encoder = new TextEncoder();
    connections.push({ headers: init?.headers as Record<string, string>, send: (text) => controller.enqueue(encoder.encode(text)), end: () => controller.close() });
    waiting?.();
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  }) as typeof fetch;
  const client = new EventStreamClient('/api/events/stream', {
    onEvent: (event) => events.push(event),
    onStatus: (status) => statuses.push(status),
    onResync: (restarted) => resyncs.push(restarted),
  }, { fetch: fakeFetch, setTimeout: (fn, ms) => timers.push({ fn, ms }), clearTimeout: () => {} });
  /** Resolves once the condition holds, checked after each microtask turn (no clock involved). */
  const settle = async (ready: () => boolean) => {
    for (let i = 0; i < 1000 && !ready(); i++) await new Promise<void>((done) => queueMicrotask(done));
    expect(ready()).toBe(true);
  };
  return { client, connections, answers, timers, events, statuses, resyncs, settle, get waiting() { return waiting; }, set waiting(w) { waiting = w; } };
}

const frame = (id: number, type = 'slot.state') =>
  `id: ${id}\ndata: ${JSON.stringify({ id, ts: '2026-01-01T00:00:00Z', type, severity: 'info', source: 'slot:chat', message: 'm', data: {} })}\n\n`;

describe('EventStreamClient', () => {
  it('resumes with Last-Event-ID after a dropped stream, saying it is down meanwhile', async () => {
    const h = harness();
    h.client.start();
    await h.settle(() => h.connections.length === 1);
    expect(h.connections[0]!.headers['last-event-id']).toBeUndefined();
    h.connections[0]!.send(': svc events, epoch A\n\n' + frame(1) + frame(2));
    await h.settle(() => h.events.length === 2);
    expect(h.statuses.at(-1)!.state).toBe('open');

    h.connections[0]!.end();
    await h.settle(() => h.timers.length === 1);
    expect(h.statuses.at(-1)).toMatchObject({ state: 'down', failures: 1, lastEventId: 2, error: { code: 'events.stream_ended' } });
    expect(h.timers[0]!.ms).toBe(reconnectDelay(1));

    h.timers.shift()!.fn();
    await h.settle(() => h.connections.length === 2);
    expect(h.connections[1]!.headers['last-event-id']).toBe('2');
    h.connections[1]!.send(': svc events, epoch A\n\n' + frame(3));
    await h.settle(() => h.events.length === 3);
    expect(h.statuses.at(-1)).toMatchObject({ state: 'open', failures: 0, error: null });
    expect(h.resyncs).toEqual([false]);
    h.client.stop();
  });

  it('shows an API error envelope while down and backs off more after each failure', async () => {
    const h = harness();
    const refused = () => new Response(JSON.stringify({ error: { code: 'auth.required', message: 'a token is required', details: {} } }), { status: 401 });
    h.answers.push(refused, refused);
    h.client.start();
    await h.settle(() => h.timers.length === 1);
    expect(h.statuses.at(-1)).toMatchObject({ state: 'down', failures: 1, error: { code: 'auth.required', message: 'a token is required', status: 401 } });
    h.timers.shift()!.fn();
    await h.settle(() => h.timers.length === 1);
    expect(h.statuses.at(-1)!.failures).toBe(2);
    expect(h.timers[0]!.ms).toBe(reconnectDelay(2));
    expect(reconnectDelay(2)).toBeGreaterThan(reconnectDelay(1));
    expect(reconnectDelay(50)).toBe(10_000);
    h.client.stop();
  });

  it('notices a restarted gateway by its epoch and resumes from the start of the new boot', async () => {
    const h = harness();
    h.client.start();
    await h.settle(() => h.connections.length === 1);
    h.connections[0]!.send(': svc events, epoch A\n\n' + frame(40));
    await h.settle(() => h.events.length === 1);
    h.connections[0]!.end();
    await h.settle(() => h.timers.length === 1);
    h.timers.shift()!.fn();
    await h.settle(() => h.connections.length === 2);
    expect(h.connections[1]!.headers['last-event-id']).toBe('40');
    h.connections[1]!.send(': svc events, epoch B\n\n');
    await h.settle(() => h.resyncs.length === 1);
    expect(h.resyncs).toEqual([true]);
    expect(h.statuses.at(-1)).toMatchObject({ state: 'open', lastEventId: null });
    h.connections[1]!.send(frame(1));
    await h.settle(() => h.events.length === 2);
    h.connections[1]!.end();
    await h.settle(() => h.timers.length === 1);
    h.timers.shift()!.fn();
    await h.settle(() => h.connections.length === 3);
    expect(h.connections[2]!.headers['last-event-id']).toBe('1');
    h.client.stop();
  });

  it('stops for good: no retry after stop()', async () => {
    const h = harness();
    h.client.start();
    await h.settle(() => h.connections.length === 1);
    h.client.stop();
    await h.settle(() => h.statuses.length === 0 || h.statuses.at(-1)!.state !== 'down');
    expect(h.timers).toHaveLength(0);
  });

  it('counts a network failure and a frame that is not JSON as outages, each with its own code', async () => {
    const h = harness();
    h.answers.push(() => {
      throw new TypeError('Failed to fetch');
    });
    h.client.start();
    await h.settle(() => h.timers.length === 1);
    expect(h.statuses.at(-1)!.error).toMatchObject({ code: 'network.unreachable' });
    h.timers.shift()!.fn();
    await h.settle(() => h.connections.length === 1);
    h.connections[0]!.send(': svc events, epoch A\n\nid: 1\ndata: {not json\n\n');
    await h.settle(() => h.timers.length === 1);
    expect(h.statuses.at(-1)).toMatchObject({ state: 'down', failures: 1, error: { code: 'events.bad_frame' } });
    h.client.stop();
  });
});
