import { describe, expect, it } from 'vitest';
import type { SvcEvent } from '../protocol/events.js';
import { EventBus, type EventBusOptions } from './bus.js';
import { parseSeverityFilter, parseTypeFilter, type EventFilter } from './filter.js';

const T0 = Date.parse('2026-05-01T12:00:00Z');

function bus(options: EventBusOptions = {}) {
  return new EventBus({ now: () => T0, ...options });
}

function settings(b: EventBus, key: string) {
  return b.publish({ type: 'settings.changed', source: 'settings', message: `${key} changed`, data: { keys: [key] } });
}

function state(b: EventBus, slot: string, to: 'starting' | 'ready' | 'error') {
  return b.publish({ type: 'slot.state', source: `slot:${slot}`, severity: to === 'error' ? 'error' : 'info', message: `${slot} -> ${to}`, data: { slot, from: 'stopped', to, reason: 'test' } });
}

function filter(type?: string, severity?: string): EventFilter {
  const types = type === undefined ? undefined : parseTypeFilter(type);
  const severities = severity === undefined ? undefined : parseSeverityFilter(severity);
  if (types && !types.ok) throw new Error(types.message);
  if (severities && !severities.ok) throw new Error(severities.message);
  return { ...(types && { types: types.value }), ...(severities && { severities: severities.value }) };
}

const summary = (events: SvcEvent[]) => events.map((e) => (e.type === 'events.gap' ? `gap:${e.data.dropped}@${e.id}` : `${e.id}:${e.type}`));

describe('EventBus', () => {
  it('numbers events from 1 with a UTC timestamp and severity info unless told', () => {
    const b = bus();
    const first = settings(b, 'a');
    const second = state(b, 'chat', 'error');
    expect([first.id, first.ts, first.severity]).toEqual([1, '2026-05-01T12:00:00.000Z', 'info']);
    expect([second.id, second.severity]).toEqual([2, 'error']);
    expect(Object.keys(first)).toEqual(['id', 'ts', 'type', 'severity', 'source', 'message', 'data']);
  });

  it('masks the password of every URL in the message and the data, for the ring and the listeners', () => {
    const b = bus();
    const heard: SvcEvent[] = [];
    b.listen((e) => heard.push(e));
    const details = { spec: 'https://u:hunter2@tools.lan/mcp', nested: [{ url: 'postgres://svc:hunter2@db/m' }] };
    const data = { action: 'mcp.install', target: 'x', actor: 'api', kind: 'action' as const, outcome: 'ok' as const, message: '', details };
    const event = b.publish({ type: 'activity', source: 'activity', message: 'installed from https://u:hunter2@tools.lan/mcp', data });
    for (const seen of [event, heard[0], b.page({ limit: 10 }).events[0]]) expect(JSON.stringify(seen)).not.toContain('hunter2');
    expect(event.message).toBe('installed from https://u:***@tools.lan/mcp');
    expect(event.data).toEqual({ ...data, details: { spec: 'https://u:***@tools.lan/mcp', nested: [{ url: 'postgres://svc:***@db/m' }] } });
  });

  it('replays the held events after `since`, then tails live ones', () => {
    const b = bus();
    for (const key of ['a', 'b', 'c']) settings(b, key);
    let ready = 0;
    const sub = b.subscribe({ since: 1, onReady: () => ready++ });
    expect(summary(sub.take())).toEqual(['2:settings.changed', '3:settings.changed']);
    settings(b, 'd');
    expect(ready).toBe(1);
    expect(summary(sub.take())).toEqual(['4:settings.changed']);
  });

  it('without since, a subscriber gets live events only', () => {
    const b = bus();
    settings(b, 'a');
    const sub = b.subscribe({ onReady: () => {} });
    settings(b, 'b');
    expect(summary(sub.take())).toEqual(['2:settings.changed']);
  });

  it('a since beyond the newest id comes from an earlier boot: everything held is replayed', () => {
    const b = bus();
    settings(b, 'a');
    settings(b, 'b');
    expect(summary(b.subscribe({ since: 900, onReady: () => {} }).take())).toEqual(['1:settings.changed', '2:settings.changed']);
  });

  it('filters by type glob and severity, in replay and live', () => {
    const b = bus();
    settings(b, 'a');
    state(b, 'chat', 'starting');
    state(b, 'chat', 'error');
    const slots = b.subscribe({ since: 0, filter: filter('slot.*'), onReady: () => {} });
    const states = b.subscribe({ since: 0, filter: filter('*.state'), onReady: () => {} });
    const errors = b.subscribe({ since: 0, filter: filter(undefined, 'warn'), onReady: () => {} });
    const either = b.subscribe({ since: 0, filter: filter('settings.changed,gpu.*', 'info,error'), onReady: () => {} });
    settings(b, 'b');
    expect(summary(slots.take())).toEqual(['2:slot.state', '3:slot.state']);
    expect(summary(states.take())).toEqual(['2:slot.state', '3:slot.state']);
    expect(summary(errors.take())).toEqual(['3:slot.state']);
    expect(summary(either.take())).toEqual(['1:settings.changed', '4:settings.changed']);
  });

  it('a replay from an id older than the ring starts with a gap counting what fell out', () => {
    const b = bus({ ringSize: 3 });
    for (const key of ['a', 'b', 'c', 'd', 'e']) settings(b, key);
    expect(summary(b.subscribe({ since: 0, onReady: () => {} }).take())).toEqual(['gap:2@2', '3:settings.changed', '4:settings.changed', '5:settings.changed']);
    expect(summary(b.subscribe({ since: 1, onReady: () => {} }).take())).toEqual(['gap:1@2', '3:settings.changed', '4:settings.changed', '5:settings.changed']);
    expect(summary(b.subscribe({ since: 2, onReady: () => {} }).take())).toEqual(['3:settings.changed', '4:settings.changed', '5:settings.changed']);
  });

  it('a slow subscriber keeps at most the queue limit and gets one gap with the exact count', () => {
    const b = bus({ queueLimit: 3 });
    const sub = b.subscribe({ onReady: () => {} });
    for (let i = 0; i < 10; i++) settings(b, `k${i}`);
    expect(sub.pending).toBe(4);
    expect(summary(sub.take(2))).toEqual(['1:settings.changed', '2:settings.changed']);
    // Room again: later events queue behind the gap, in order.
    settings(b, 'late');
    expect(summary(sub.take())).toEqual(['3:settings.changed', 'gap:7@10', '11:settings.changed']);
    expect(sub.dropped).toBe(7);
    expect(b.stats()).toEqual({ published: 11, subscribers: 1, dropped: 7 });
    sub.close();
    expect(b.stats()).toEqual({ published: 11, subscribers: 0, dropped: 7 });
  });

  it('the replay does not count against the queue limit', () => {
    const b = bus({ queueLimit: 2 });
    for (let i = 0; i < 5; i++) settings(b, `k${i}`);
    const sub = b.subscribe({ since: 0, onReady: () => {} });
    settings(b, 'live1');
    settings(b, 'live2');
    settings(b, 'live3');
    expect(summary(sub.take())).toEqual(['1:settings.changed', '2:settings.changed', '3:settings.changed', '4:settings.changed', '5:settings.changed', '6:settings.changed', '7:settings.changed', 'gap:1@8']);
  });

  it('events.gap passes any type and severity filter', () => {
    const b = bus({ queueLimit: 1, ringSize: 2 });
    const sub = b.subscribe({ filter: filter('slot.state', 'error'), onReady: () => {} });
    state(b, 'a', 'error');
    state(b, 'b', 'error');
    state(b, 'c', 'starting');
    expect(summary(sub.take())).toEqual(['1:slot.state', 'gap:1@2']);
    expect(summary(b.subscribe({ since: 0, filter: filter('model.*'), onReady: () => {} }).take())).toEqual(['gap:1@1']);
  });

  it('drops nothing for a reader that takes as events come, and tells it when there is something to take', () => {
    const b = bus({ queueLimit: 1 });
    const taken: SvcEvent[] = [];
    const sub = b.subscribe({ onReady: () => taken.push(...sub.take()) });
    for (let i = 0; i < 5; i++) settings(b, `k${i}`);
    expect(taken.map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);
    expect(sub.dropped).toBe(0);
  });

  it('a closed subscription gets nothing more', () => {
    const b = bus();
    const sub = b.subscribe({ onReady: () => {} });
    sub.close();
    settings(b, 'a');
    expect(sub.take()).toEqual([]);
  });

  it('in-process listeners see every event; a throwing one does not stop the publisher', () => {
    const b = bus();
    const seen: number[] = [];
    const stopBad = b.listen(() => {
      throw new Error('bad listener');
    });
    const stop = b.listen((e) => seen.push(e.id));
    expect(settings(b, 'a').id).toBe(1);
    stop();
    stopBad();
    settings(b, 'b');
    expect(seen).toEqual([1]);
  });
});

describe('EventBus.page (polling)', () => {
  it('without since: the newest `limit` matching events, oldest first; next_since is the newest id', () => {
    const b = bus();
    for (const key of ['a', 'b', 'c']) settings(b, key);
    state(b, 'chat', 'ready');
    const page = b.page({ limit: 2, filter: filter('settings.*') });
    expect(summary(page.events)).toEqual(['2:settings.changed', '3:settings.changed']);
    expect([page.next_since, page.epoch]).toEqual([4, b.epoch]);
  });

  it('with since: events after it up to limit; next_since resumes right after what was scanned', () => {
    const b = bus();
    for (const key of ['a', 'b', 'c', 'd']) settings(b, key);
    const first = b.page({ since: 0, limit: 3 });
    expect([summary(first.events), first.next_since]).toEqual([['1:settings.changed', '2:settings.changed', '3:settings.changed'], 3]);
    const second = b.page({ since: first.next_since, limit: 3 });
    expect([summary(second.events), second.next_since]).toEqual([['4:settings.changed'], 4]);
    const third = b.page({ since: second.next_since, limit: 3, filter: filter('slot.*') });
    expect([summary(third.events), third.next_since]).toEqual([[], 4]);
    state(b, 'chat', 'ready');
    expect(b.page({ since: 4, limit: 3, filter: filter('settings.*') }).next_since).toBe(5);
  });

  it('starts with a gap when since is older than the ring', () => {
    const b = bus({ ringSize: 2 });
    for (const key of ['a', 'b', 'c', 'd']) settings(b, key);
    expect(summary(b.page({ since: 0, limit: 10 }).events)).toEqual(['gap:2@2', '3:settings.changed', '4:settings.changed']);
  });

  it('each bus has its own epoch', () => {
    expect(bus().epoch).not.toBe(bus().epoch);
  });
});

describe('filters', () => {
  it('refuses a glob that matches no event type, and malformed ones', () => {
    expect(parseTypeFilter('slot.stat')).toMatchObject({ ok: false, message: expect.stringContaining('matches no event type') });
    expect(parseTypeFilter('slot.*,')).toMatchObject({ ok: false });
    expect(parseTypeFilter('slot state')).toMatchObject({ ok: false });
    expect(parseTypeFilter('*')).toMatchObject({ ok: true });
  });

  it('a glob star spans dots; dots are literal', () => {
    const glob = parseTypeFilter('s*e');
    expect(glob.ok && glob.value.test('slot.state')).toBe(true);
    const dotted = parseTypeFilter('slot.state');
    expect(dotted.ok && dotted.value.test('slotxstate')).toBe(false);
  });

  it('one severity is a minimum, a list is exactly those', () => {
    const set = (value: string) => {
      const parsed = parseSeverityFilter(value);
      return parsed.ok ? [...parsed.value].sort() : parsed.message;
    };
    expect(set('info')).toEqual(['error', 'info', 'warn']);
    expect(set('warn')).toEqual(['error', 'warn']);
    expect(set('info,error')).toEqual(['error', 'info']);
    expect(set('debug')).toMatch(/expected info, warn or error/);
  });
});
