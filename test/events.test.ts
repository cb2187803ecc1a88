// The event stream (issue 10, §5; docs/api.md, "Events"), on a real gateway: slot
// transitions streamed as they happen, replay with Last-Event-ID, polling, bad queries,
// a client too slow to read, and a stream open at shutdown.
import { afterEach, describe, expect, it } from 'vitest';
import type { SvcEvent } from '../src/protocol/events.js';
import { homeWithFaultSlots } from './helpers/faults.js';
import { api, useTempGateways, type Gateway } from './helpers/gateway.js';
import { EventReader } from './helpers/sse.js';
import { waitFor } from './helpers/wait.js';

const { home: tempHome, gateway: start } = useTempGateways(afterEach);

/** One /api/events/stream connection, read frame by frame. */
class EventStream {
  private constructor(private readonly reader: EventReader, private readonly abort: AbortController) {}

  static async open(gw: Gateway, query = '', headers: Record<string, string> = {}): Promise<EventStream> {
    const abort = new AbortController();
    const response = await fetch(`${gw.url}/api/events/stream${query}`, { headers, signal: abort.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    return new EventStream(new EventReader(response.body!.getReader()), abort);
  }

  /** The next event (its `id:` line checked against its JSON), or null when the stream ended. */
  async next(): Promise<SvcEvent | null> {
    const frame = await this.reader.next();
    if (frame === null) return null;
    const match = /^id: (\d+)\ndata: (.*)$/.exec(frame);
    if (!match) throw new Error(`not an id + data frame: ${JSON.stringify(frame.slice(0, 200))}`);
    const event = JSON.parse(match[2]!) as SvcEvent;
    expect(event.id).toBe(Number(match[1]));
    return event;
  }

  /** Read until `wanted` matches an event; returns everything read. */
  async until(wanted: (event: SvcEvent) => boolean, most = 10_000): Promise<SvcEvent[]> {
    const read: SvcEvent[] = [];
    for (let i = 0; i < most; i++) {
      const event = await this.next();
      if (event === null) throw new Error(`the stream ended after ${read.length} events`);
      read.push(event);
      if (wanted(event)) return read;
    }
    throw new Error(`no wanted event in ${most}`);
  }

  close(): void {
    this.abort.abort();
  }
}

const transition = (e: SvcEvent) => (e.type === 'slot.state' ? `${e.data.from}>${e.data.to}` : e.type);
const isReady = (e: SvcEvent) => e.type === 'slot.state' && e.data.to === 'ready';

async function faultGateway(): Promise<Gateway> {
  // --load-ms: the engine answers "loading" for a while, so warming is seen on the way.
  // start_at_boot = false: the slot stays stopped until the test loads it.
  const home = await homeWithFaultSlots([{ name: 'chat', knobs: '--load-ms 300' }], { 'svc.toml': '[slots]\nstart_at_boot = false\n' });
  return start(home, { env: home.env });
}

describe('GET /api/events/stream', () => {
  it('streams slot.state transitions in order as they happen, the first before the load request returns', async () => {
    const gw = await faultGateway();
    const stream = await EventStream.open(gw, '?type=slot.*');
    const seen: SvcEvent[] = [];
    const reading = stream.until((e) => { seen.push(e); return isReady(e); });

    const load = await api(gw.url, '/api/slots/chat/load', { method: 'POST' });
    const seenWhenLoadReturned = seen.map(transition);
    expect(load.status).toBe(200);
    await reading;

    expect(seenWhenLoadReturned[0]).toBe('stopped>starting');
    expect(['stopped>starting,starting>warming,warming>ready', 'stopped>starting,starting>ready']).toContain(seen.map(transition).join(','));
    const first = seen[0]!;
    expect(first).toMatchObject({ type: 'slot.state', severity: 'info', source: 'slot:chat', data: { slot: 'chat', from: 'stopped', to: 'starting' } });
    expect(first.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(seen.map((e) => e.id)).toEqual([...seen.map((e) => e.id)].sort((a, b) => a - b));
    stream.close();
  }, 30_000);

  it('a second connection resuming with Last-Event-ID gets exactly the events after that id, then live ones', async () => {
    const gw = await faultGateway();
    const first = await EventStream.open(gw, '?type=slot.*');
    expect((await api(gw.url, '/api/slots/chat/load', { method: 'POST' })).status).toBe(200);
    const loaded = await first.until(isReady);
    first.close();

    // The header wins over ?since= (an EventSource reconnects with its first URL and the header).
    const resumed = await EventStream.open(gw, '?type=slot.*&since=0', { 'last-event-id': String(loaded[0]!.id) });
    const replayed = await resumed.until(isReady);
    expect(replayed.map((e) => e.id)).toEqual(loaded.slice(1).map((e) => e.id));
    expect(replayed).toEqual(loaded.slice(1));

    expect((await api(gw.url, '/api/slots/chat/unload', { method: 'POST' })).status).toBe(200);
    expect(transition((await resumed.next())!)).toBe('ready>stopping');
    resumed.close();
  }, 30_000);

  it('a client that reads nothing while many events are published gets events.gap with the exact count, and the stream goes on', async () => {
    const gw = await start(tempHome());
    const stream = await EventStream.open(gw);
    // Large values fill the socket buffers (a few MiB on loopback) in some dozens of writes;
    // once they are full the stream stops taking events and its bounded queue overflows.
    // (15 KiB: the activity event of a change carries before and after, under the 32 KiB
    // an event's details may have before they are cut, src/server/event-sources.ts.)
    const big = 'm'.repeat(15 * 1024);
    const dropped = async () => Number(/^svc_events_dropped_total (\d+)$/m.exec((await api(gw.url, '/api/metrics')).text)?.[1]);
    let puts = 0;
    await waitFor(async () => {
      for (let i = 0; i < 16; i++) {
        const put = await api(gw.url, '/api/settings', { method: 'PUT', body: { memory: { embedding: { rerank_model: `${big}${puts++ % 2}` } } } });
        expect(put.status).toBe(200);
      }
      return dropped();
    }, { what: 'the unread stream to drop events', until: (count) => count > 0, interval: 0, timeout: 20_000 });

    // Reading the gap means the queue behind it has room again: the next setting gets through.
    const read = await stream.until((e) => e.type === 'events.gap');
    expect((await api(gw.url, '/api/settings', { method: 'PUT', body: { slots: { idle_timeout_s: 77 } } })).status).toBe(200);
    read.push(...(await stream.until((e) => e.type === 'settings.changed' && e.data.keys.includes('slots.idle_timeout_s'))));
    const droppedTotal = await dropped();
    const gaps = read.filter((e) => e.type === 'events.gap');
    expect(gaps.length).toBeGreaterThan(0);
    expect(gaps[0]).toMatchObject({ type: 'events.gap', severity: 'warn', source: 'events' });
    expect(gaps.reduce((sum, e) => sum + (e.type === 'events.gap' ? e.data.dropped : 0), 0)).toBe(droppedTotal);
    // Every id is accounted for, once: each event follows the one before it or the gap that
    // stands for the events in between (a gap's id is the last id it stands for).
    for (let i = 1; i < read.length; i++) {
      const [before, event] = [read[i - 1]!, read[i]!];
      const expected = event.type === 'events.gap' ? before.id + event.data.dropped : before.id + 1;
      expect(event.id).toBe(expected);
    }
    // The stream went on past the gap: the last setting arrived, and so did everything after the gap.
    expect(read.at(-1)!.id).toBe((await api(gw.url, '/api/events?limit=1')).json.next_since);
    stream.close();
  }, 120_000);

  it('ends cleanly when the gateway shuts down', async () => {
    const gw = await start(tempHome());
    const stream = await EventStream.open(gw, '?since=0');
    expect((await stream.next())?.type).toBe('activity'); // system.start
    expect(await gw.stop()).toBe(0);
    expect(await stream.next()).toBeNull();
  }, 30_000);
});

describe('GET /api/events', () => {
  it('pages through events after an id with type and severity filters; the epoch stays within a boot', async () => {
    const gw = await faultGateway();
    expect((await api(gw.url, '/api/slots/chat/load', { method: 'POST' })).status).toBe(200);
    const states = (await api(gw.url, '/api/events?type=slot.state&since=0')).json;
    expect(states.events.map(transition).at(-1)).toMatch(/>ready$/);
    const firstTwo = (await api(gw.url, '/api/events?type=*.state&since=0&limit=2')).json;
    expect(firstTwo.events.map(transition)).toEqual(states.events.slice(0, 2).map(transition));
    expect(firstTwo.next_since).toBe(states.events[1].id);
    const rest = (await api(gw.url, `/api/events?type=slot.state&since=${firstTwo.next_since}`)).json;
    expect(rest.events).toEqual(states.events.slice(2));
    expect(rest.epoch).toBe(firstTwo.epoch);
    expect(typeof rest.epoch).toBe('string');
    expect((await api(gw.url, '/api/events?since=0&severity=error')).json.events).toEqual([]);

    const activity = (await api(gw.url, '/api/events?type=activity&limit=1')).json.events;
    expect(activity).toHaveLength(1);
    expect(activity[0].data).toMatchObject({ action: 'slot.load', target: 'chat', outcome: 'ok', actor: 'api' });
  }, 30_000);

  it('publishes metrics.slot for a slot whose figures changed', async () => {
    const gw = await faultGateway();
    const chat = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 } });
    expect(chat.status).toBe(200);
    // The sampler runs every 2 s: wait for its next round.
    const metrics = await waitFor(async () => (await api(gw.url, '/api/events?type=metrics.slot')).json.events as SvcEvent[], { what: 'a metrics.slot event', until: (events) => events.length > 0, interval: 100 });
    expect(metrics[0]).toMatchObject({ type: 'metrics.slot', source: 'slot:chat', data: { slot: 'chat', in_flight: 0, requests: { ok: 1, error: 0, cancelled: 0 } } });
  }, 30_000);

  it('a bad query is 400 events.invalid_query naming each parameter, on both routes', async () => {
    const gw = await start(tempHome());
    const page = await api(gw.url, '/api/events?type=slot.stat&limit=5000&severity=loud');
    expect(page.status).toBe(400);
    expect(page.json.error.code).toBe('events.invalid_query');
    expect(page.json.error.details.problems.map((p: { path: string }) => p.path)).toEqual(['type', 'severity', 'limit']);
    const stream = await api(gw.url, '/api/events/stream', { headers: { 'last-event-id': 'yesterday' } });
    expect([stream.status, stream.json.error.code, stream.json.error.details.problems[0].path]).toEqual([400, 'events.invalid_query', 'Last-Event-ID']);
  });
});
