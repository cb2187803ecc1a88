import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { SvcError } from '../protocol/errors.js';
import { FLIGHT_BOUND_BYTES, StreamFlights, type FlightSource } from './single-flight.js';

const HEAD = { statusCode: 200, headers: { 'content-type': 'text/event-stream' } };

/** A controllable upstream: push chunks, end or fail, and see whether it was aborted. */
function upstream() {
  const queue: Array<Buffer | Error | null> = [];
  let wake: (() => void) | undefined;
  let calls = 0;
  let aborted = false;
  const push = (item: Buffer | Error | null) => {
    queue.push(item);
    wake?.();
  };
  const start = async (signal: AbortSignal): Promise<FlightSource> => {
    calls++;
    signal.addEventListener('abort', () => {
      aborted = true;
      push(new Error('aborted'));
    });
    async function* body() {
      for (;;) {
        while (queue.length === 0) await new Promise<void>((r) => (wake = r));
        const item = queue.shift()!;
        if (item === null) return;
        if (item instanceof Error) throw item;
        yield item;
      }
    }
    return { head: HEAD, body: body() };
  };
  return { start, push, calls: () => calls, aborted: () => aborted };
}

async function collect(body: AsyncIterable<Buffer>): Promise<string> {
  let text = '';
  for await (const chunk of body) text += chunk.toString();
  return text;
}

/** A real HTTP engine streaming `count` chunks of `size` bytes (chunk i filled with a letter), with back-pressure. */
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
});

async function engine(count: number, size: number): Promise<{ start: (signal: AbortSignal) => Promise<FlightSource>; expected: string; calls: () => number }> {
  let calls = 0;
  const piece = (i: number) => String.fromCharCode(97 + (i % 26)).repeat(size);
  const server = createServer(async (_req, res) => {
    calls++;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < count && !res.destroyed; i++) if (!res.write(piece(i))) await once(res, 'drain');
    res.end();
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const start = async (signal: AbortSignal): Promise<FlightSource> => {
    const answer = await request(url, { signal });
    return { head: { statusCode: answer.statusCode, headers: answer.headers }, body: answer.body };
  };
  return { start, expected: Array.from({ length: count }, (_, i) => piece(i)).join(''), calls: () => calls };
}

describe('StreamFlights', () => {
  it('twenty identical requests share one upstream call and all get the same bytes', async () => {
    const flights = new StreamFlights();
    const up = upstream();
    const subs = Array.from({ length: 20 }, () => flights.join('k', up.start));
    expect(subs.filter((s) => s.leader)).toHaveLength(1);
    const texts = Promise.all(subs.map((s) => collect(s.body())));
    up.push(Buffer.from('data: 1\n\n'));
    up.push(Buffer.from('data: [DONE]\n\n'));
    up.push(null);
    expect(new Set(await texts)).toEqual(new Set(['data: 1\n\ndata: [DONE]\n\n']));
    expect(up.calls()).toBe(1);
    expect((await subs[7]!.head()).statusCode).toBe(200);
    expect(flights.size).toBe(0);
    expect(flights.retainedBytes).toBe(0);
  });

  it('one subscriber leaving does not cancel the others; the last one leaving aborts', async () => {
    const flights = new StreamFlights();
    const up = upstream();
    const [a, b] = [flights.join('k', up.start), flights.join('k', up.start)];
    await a.head();
    a.leave();
    expect(up.aborted()).toBe(false);
    const bBody = b.body()[Symbol.asyncIterator]();
    up.push(Buffer.from('x'));
    expect((await bBody.next()).value!.toString()).toBe('x');
    b.leave();
    expect(up.aborted()).toBe(true);
    expect(await bBody.next()).toEqual({ done: true, value: undefined }); // it left: no error for it
  });

  it('an upstream failure reaches every subscriber where it broke, and keys stay separate', async () => {
    const flights = new StreamFlights();
    const up = upstream();
    const other = upstream();
    const [a, b] = [flights.join('k', up.start), flights.join('k', up.start)];
    flights.join('other', other.start);
    expect(other.calls() + up.calls()).toBe(2);
    const results = Promise.allSettled([collect(a.body()), collect(b.body())]);
    up.push(Buffer.from('partial'));
    up.push(new Error('engine died'));
    for (const result of await results) expect(result).toMatchObject({ status: 'rejected', reason: { message: 'engine died' } });
  });
});

describe('late joiners', () => {
  it('a late joiner gets the whole stream from the first byte, then the live chunks', async () => {
    const flights = new StreamFlights();
    const up = await engine(40, 1000);
    const { start, expected } = up;
    const first = flights.join('k', start, { mayJoinLater: () => true });
    let late: ReturnType<typeof flights.join> | undefined;
    let firstText = '';
    for await (const chunk of first.body()) {
      firstText += chunk.toString();
      // Well into the stream (the upstream's chunks may be merged: at least 10 pieces read).
      if (!late && firstText.length >= 10_000) late = flights.join('k', start, { mayJoinLater: () => true });
    }
    expect(late!.leader).toBe(false);
    expect(await collect(late!.body())).toBe(expected);
    expect(firstText).toBe(expected);
    expect(up.calls()).toBe(1);
  });

  it('once the beginning no longer fits the bound, a new request starts its own flight', async () => {
    const flights = new StreamFlights();
    const { start, expected, calls } = await engine(40, 1000);
    const first = flights.join('k', start, { mayJoinLater: () => true, boundBytes: 8_000 });
    let text = '';
    const body = first.body()[Symbol.asyncIterator]();
    while (text.length <= 8_000) text += (await body.next()).value!.toString();
    const second = flights.join('k', start, { mayJoinLater: () => true, boundBytes: 8_000 });
    expect(second.leader).toBe(true);
    expect(await collect(second.body())).toBe(expected);
    for (let next = await body.next(); !next.done; next = await body.next()) text += next.value.toString();
    expect(text).toBe(expected);
    expect(calls()).toBe(2);
  });

  it('while a request may still join, chunks are kept by reference, not copied', async () => {
    const flights = new StreamFlights();
    const sent = [Buffer.from('one'), Buffer.from('two'), Buffer.from('three')];
    const sub = flights.join('k', async () => ({ head: HEAD, body: Readable.from(sent) }), { mayJoinLater: () => true });
    const got: Buffer[] = [];
    for await (const chunk of sub.body()) got.push(chunk);
    expect(got).toHaveLength(3);
    got.forEach((chunk, i) => expect(chunk).toBe(sent[i])); // the same objects
  });
});

describe('memory', () => {
  it('one subscriber that nobody can join: nothing is held once it took each chunk', async () => {
    const flights = new StreamFlights();
    const { start, expected } = await engine(200, 1000);
    const sub = flights.join('k', start, { mayJoinLater: () => false });
    let text = '';
    let largest = 0;
    for await (const chunk of sub.body()) {
      text += chunk.toString();
      largest = Math.max(largest, chunk.length);
      // At most the next chunk, read ahead while this one was handed over.
      expect(flights.retainedBytes).toBeLessThanOrEqual(largest);
    }
    expect(text).toBe(expected);
    expect(flights.retainedBytes).toBe(0);
  });

  it('a slow reader is dropped with dispatch.client_too_slow past the bound; the fast one gets every byte; held bytes stay within the bound plus a chunk', async () => {
    const bound = 64 * 1024;
    const flights = new StreamFlights();
    const { start, expected } = await engine(400, 1024);
    // Both join while joining is possible (the dispatcher counts the second as a cold waiter), then nobody else can.
    let joining = true;
    const options = { mayJoinLater: () => joining, boundBytes: bound };
    const [fast, slow] = [flights.join('k', start, options), flights.join('k', start, options)];
    joining = false;
    expect(slow.leader).toBe(false);
    const slowBody = slow.body()[Symbol.asyncIterator]();
    const slowFirst = (await slowBody.next()).value!.toString();
    // The slow reader now pauses until the fast one has read the whole stream.
    let fastText = '';
    let largest = 0;
    let highest = 0;
    for await (const chunk of fast.body()) {
      fastText += chunk.toString();
      largest = Math.max(largest, chunk.length);
      highest = Math.max(highest, flights.retainedBytes);
    }
    expect(fastText).toBe(expected);
    expect(highest).toBeGreaterThan(bound / 2); // the slow reader's backlog was really held...
    expect(highest).toBeLessThanOrEqual(bound + largest); // ...within the bound
    const error = await slowBody.next().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ code: 'dispatch.client_too_slow', details: { bound_bytes: bound } });
    expect(expected.startsWith(slowFirst)).toBe(true);
    slow.leave();
    fast.leave();
    expect(flights.retainedBytes).toBe(0);
  });

  it('a reader exactly the bound behind is kept, and gets every byte once it reads', async () => {
    const bound = 64 * 1024;
    const flights = new StreamFlights();
    const up = upstream();
    let joining = true;
    const options = { mayJoinLater: () => joining, boundBytes: bound };
    const [fast, idle] = [flights.join('k', up.start, options), flights.join('k', up.start, options)];
    joining = false;
    // The idle one takes nothing until the fast one has all: when the last chunk comes, it is
    // behind by every chunk before it, the bound exactly.
    const chunks = Array.from({ length: bound / 1024 + 1 }, (_, i) => Buffer.alloc(1024, 97 + (i % 26)));
    for (const chunk of chunks) up.push(chunk);
    up.push(null);
    const expected = Buffer.concat(chunks).toString();
    expect(await collect(fast.body())).toBe(expected);
    expect(await collect(idle.body())).toBe(expected);
  });

  it('the default bound is 1 MiB', () => {
    expect(FLIGHT_BOUND_BYTES).toBe(1024 * 1024);
  });
});
