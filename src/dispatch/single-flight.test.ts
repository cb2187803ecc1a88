import { describe, expect, it } from 'vitest';
import { StreamFlights, type FlightSource } from './single-flight.js';

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
    return { head: { statusCode: 200, headers: { 'content-type': 'text/event-stream' } }, body: body() };
  };
  return { start, push, calls: () => calls, aborted: () => aborted };
}

async function collect(body: AsyncIterable<Buffer>): Promise<string> {
  let text = '';
  for await (const chunk of body) text += chunk.toString();
  return text;
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
  });

  it('a late joiner gets the chunks it missed', async () => {
    const flights = new StreamFlights();
    const up = upstream();
    const first = flights.join('k', up.start);
    const firstText = collect(first.body());
    up.push(Buffer.from('a'));
    await first.head();
    await new Promise((r) => setTimeout(r, 10));
    const late = flights.join('k', up.start);
    expect(late.leader).toBe(false);
    const lateText = collect(late.body());
    up.push(Buffer.from('b'));
    up.push(null);
    expect(await firstText).toBe('ab');
    expect(await lateText).toBe('ab');
  });

  it('one subscriber leaving does not cancel the others; the last one leaving aborts', async () => {
    const flights = new StreamFlights();
    const up = upstream();
    const [a, b] = [flights.join('k', up.start), flights.join('k', up.start)];
    await a.head();
    a.leave();
    expect(up.aborted()).toBe(false);
    const bText = collect(b.body());
    up.push(Buffer.from('x'));
    b.leave();
    expect(up.aborted()).toBe(true);
    await expect(bText).rejects.toThrow('aborted');
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
