import { describe, expect, it } from 'vitest';
import { SlotMetrics } from '../dispatch/metrics.js';
import { EventBus } from '../events/bus.js';
import type { SvcEvent } from '../protocol/events.js';
import type { SlotViewPayload } from '../protocol/slots.js';
import { SlotMetricsEvents } from './metrics-events.js';

function setup() {
  let now = 1_000;
  const metrics = new SlotMetrics(() => now);
  const bus = new EventBus();
  const events: SvcEvent[] = [];
  bus.listen((e) => events.push(e));
  let views: Array<Pick<SlotViewPayload, 'name' | 'in_flight'>> = [{ name: 'chat', in_flight: 0 }, { name: 'embed', in_flight: 0 }];
  const sampler = new SlotMetricsEvents(bus, metrics, () => views as SlotViewPayload[]);
  return {
    metrics,
    sampler,
    events,
    advance: (ms: number) => (now += ms),
    setViews: (next: typeof views) => (views = next),
  };
}

describe('SlotMetricsEvents', () => {
  it('publishes nothing for slots that never served a request', () => {
    const { sampler, events } = setup();
    expect(sampler.tick()).toBe(0);
    expect(events).toEqual([]);
  });

  it('publishes a slot whose figures changed, once, and again when they change', () => {
    const t = setup();
    t.setViews([{ name: 'chat', in_flight: 1 }, { name: 'embed', in_flight: 0 }]);
    expect(t.sampler.tick()).toBe(1);
    expect(t.sampler.tick()).toBe(0);
    const tap = t.metrics.start('chat');
    tap.head(200, 'text/event-stream');
    t.advance(40);
    tap.chunk(Buffer.from('data: {"choices":[{"delta":{"content":"a"}}]}\n\n'));
    t.advance(10);
    tap.chunk(Buffer.from('data: {"choices":[{"delta":{"content":"b"}}]}\n\n'));
    tap.end('ok');
    t.setViews([{ name: 'chat', in_flight: 0 }, { name: 'embed', in_flight: 0 }]);
    expect(t.sampler.tick()).toBe(1);
    const last = t.events.at(-1)!;
    expect(last.type === 'metrics.slot' && last.data).toEqual({ slot: 'chat', tokens_per_second: 200, in_flight: 0, ttft_ms_avg: 40, requests: { ok: 1, error: 0, cancelled: 0 } });
    expect(last.source).toBe('slot:chat');
    // Generation stopped: the rate decays to 0 once, then nothing more.
    t.advance(10_000);
    expect(t.sampler.tick()).toBe(1);
    const decayed = t.events.at(-1)!;
    expect(decayed.type === 'metrics.slot' && decayed.data.tokens_per_second).toBe(0);
    expect(t.sampler.tick()).toBe(0);
  });

  it('forgets a deleted slot, so one created again under its name starts from idle', () => {
    const t = setup();
    t.setViews([{ name: 'chat', in_flight: 2 }]);
    expect(t.sampler.tick()).toBe(1);
    t.setViews([]);
    expect(t.sampler.tick()).toBe(0);
    t.setViews([{ name: 'chat', in_flight: 2 }]);
    expect(t.sampler.tick()).toBe(1);
  });
});
