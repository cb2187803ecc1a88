// The one event bus of a gateway (docs/api.md, "Events"). Slots, settings, models and the
// rest publish here without knowing who listens; the HTTP layer streams it. The last
// RING_SIZE events are kept for replay; every reader has its own bounded queue, so a slow
// reader costs at most that queue and never slows a publisher.
import { randomUUID } from 'node:crypto';
import type { EventInput, EventPagePayload, SvcEvent } from '../protocol/events.js';
import { maskUrlSecrets, maskUrlSecretsIn } from '../protocol/url-secrets.js';
import { matches, type EventFilter } from './filter.js';
import { EventRing } from './ring.js';
import { Subscription } from './subscription.js';

export const RING_SIZE = 500;
/** Live events held for one reader that is not keeping up; beyond it they are dropped and counted. */
export const QUEUE_LIMIT = 256;

export interface EventBusOptions {
  ringSize?: number;
  queueLimit?: number;
  /** Wall-clock milliseconds; injectable for tests. */
  now?: () => number;
}

export interface SubscribeOptions {
  /** Replay the held events with id > since before the live ones. Absent: live events only. */
  since?: number;
  filter?: EventFilter;
  onReady: () => void;
}

export interface PageQuery {
  since?: number;
  filter?: EventFilter;
  limit: number;
}

export interface BusStats {
  published: number;
  subscribers: number;
  /** Events dropped for slow readers since the boot, all readers together. */
  dropped: number;
}

export class EventBus {
  /** Tells one boot from the next: ids restart at 1 with each. */
  readonly epoch = randomUUID();
  private readonly ring: EventRing;
  private readonly subscribers = new Set<Subscription>();
  private readonly listeners = new Set<(event: SvcEvent) => void>();
  private readonly queueLimit: number;
  private readonly now: () => number;
  private droppedBefore = 0;

  constructor(options: EventBusOptions = {}) {
    this.ring = new EventRing(options.ringSize ?? RING_SIZE);
    this.queueLimit = options.queueLimit ?? QUEUE_LIMIT;
    this.now = options.now ?? Date.now;
  }

  publish(input: EventInput): SvcEvent {
    const { type, severity = 'info', source } = input;
    // No reader sees a URL's password, whoever published it (protocol/url-secrets.ts).
    const message = maskUrlSecrets(input.message);
    const data = maskUrlSecretsIn(input.data);
    const event = Object.freeze({ id: this.ring.newestId + 1, ts: new Date(this.now()).toISOString(), type, severity, source, message, data }) as SvcEvent;
    this.ring.push(event);
    for (const subscriber of this.subscribers) subscriber.offer(event);
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // A broken listener must not break the publisher (often a slot in mid-transition).
        process.emitWarning(`event listener failed on ${event.type}: ${(error as Error).message}`);
      }
    }
    return event;
  }

  /** In-process listeners, called synchronously for every event; for code, not for clients. */
  listen(listener: (event: SvcEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** A reader that replays from `since`, then gets live events through its bounded queue. */
  subscribe(options: SubscribeOptions): Subscription {
    const subscription = new Subscription({
      filter: options.filter ?? {},
      limit: this.queueLimit,
      onReady: options.onReady,
      makeGap: (dropped, lastId) => this.gap(dropped, lastId),
      detach: (s) => {
        this.droppedBefore += s.dropped;
        this.subscribers.delete(s);
      },
    });
    if (options.since !== undefined) {
      const since = this.resumePoint(options.since);
      subscription.seed(this.ring.after(since), this.fellOut(since));
    }
    this.subscribers.add(subscription);
    return subscription;
  }

  /** For polling: at most `limit` matching events after `since` (or the newest ones), oldest first. */
  page(query: PageQuery): EventPagePayload {
    const filter = query.filter ?? {};
    if (query.since === undefined) {
      const events = this.ring.after(0).filter((event) => matches(filter, event)).slice(-query.limit);
      return { events, next_since: this.ring.newestId, epoch: this.epoch };
    }
    const since = this.resumePoint(query.since);
    const events: SvcEvent[] = [];
    let scanned = since;
    for (const event of this.ring.after(since)) {
      if (events.length === query.limit) break;
      scanned = event.id;
      if (matches(filter, event)) events.push(event);
    }
    const fellOut = this.fellOut(since);
    if (fellOut) events.unshift(this.gap(fellOut.dropped, fellOut.lastId));
    return { events, next_since: Math.max(scanned, since), epoch: this.epoch };
  }

  stats(): BusStats {
    let dropped = this.droppedBefore;
    for (const subscriber of this.subscribers) dropped += subscriber.dropped;
    return { published: this.ring.newestId, subscribers: this.subscribers.size, dropped };
  }

  /** An id beyond the newest can only come from an earlier boot: replay everything held. */
  private resumePoint(since: number): number {
    return since > this.ring.newestId ? 0 : since;
  }

  private fellOut(since: number): { gap: true; dropped: number; lastId: number } | null {
    const dropped = this.ring.oldestId - 1 - since;
    return dropped > 0 ? { gap: true, dropped, lastId: this.ring.oldestId - 1 } : null;
  }

  private gap(dropped: number, lastId: number): SvcEvent {
    return {
      id: lastId,
      ts: new Date(this.now()).toISOString(),
      type: 'events.gap',
      severity: 'warn',
      source: 'events',
      message: `${dropped} event${dropped === 1 ? '' : 's'} missed (up to id ${lastId})`,
      data: { dropped },
    };
  }
}
