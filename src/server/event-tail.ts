// One server-sent event stream that tails the event bus (/api/events/stream, /api/mcp/stream,
// /api/agent/approvals/events). It writes with back-pressure: while the socket will not take
// more, it stops taking from its subscription, whose bounded queue then overflows into an
// events.gap instead of the gateway's memory growing with a slow client's backlog.
import type { FastifyReply } from 'fastify';
import type { SubscribeOptions } from '../events/bus.js';
import type { SvcEvent } from '../protocol/events.js';
import type { ServerContext } from './context.js';
import { keepAlive, openEventStream } from './sse.js';

/** Events written to the socket in one write. */
const BATCH = 64;

export interface EventTail {
  /** What to subscribe to (replay point, filter). */
  subscribe: Omit<SubscribeOptions, 'onReady'>;
  /** Written first, once subscribed: a change in between is sent (at worst twice), never lost. */
  head(): string;
  /** The text of a batch of events ('' to send nothing). */
  render(batch: SvcEvent[]): string;
}

/**
 * Opens the stream (counted against the cap on open streams) and tails the bus until the
 * client leaves or `ends` is called at shutdown (each stream adds its end to the set).
 */
export function tailEvents(ctx: ServerContext, reply: FastifyReply, ends: Set<() => void>, tail: EventTail): void {
  const raw = openEventStream(reply, ctx);
  let blocked = false;
  let scheduled = false;
  let ended = false;
  const pump = () => {
    scheduled = false;
    while (!blocked && !ended) {
      const batch = subscription.take(BATCH);
      if (batch.length === 0) return;
      const text = tail.render(batch);
      if (text) blocked = !raw.write(text);
    }
  };
  // Called inside publish(): the writing happens a moment later, off the publisher's stack.
  const subscription = ctx.events.subscribe({
    ...tail.subscribe,
    onReady: () => {
      if (scheduled || blocked) return;
      scheduled = true;
      queueMicrotask(pump);
    },
  });
  raw.write(tail.head());
  const stopKeepAlive = keepAlive(raw, () => blocked);
  const end = () => {
    if (ended) return;
    ended = true;
    stopKeepAlive();
    subscription.close();
    ends.delete(end);
    // A client that stopped reading would never let end() finish flushing: cut it off.
    if (blocked) raw.destroy();
    else if (!raw.writableEnded) raw.end();
  };
  raw.on('drain', () => {
    blocked = false;
    pump();
  });
  raw.on('close', end);
  raw.on('error', end);
  ends.add(end);
  pump();
}
