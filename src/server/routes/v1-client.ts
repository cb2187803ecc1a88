// The /v1 routes Fastify parses (audio, images) over the dispatcher: the client's signal and
// Server-Timing marks for the request, and its result written to the reply's raw response
// (taken from Fastify first: the writer writes it byte for byte). A failure before any
// result goes to Fastify's error handler, the one renderer.
import type { FastifyReply } from 'fastify';
import type { DispatchResult } from '../../dispatch/result.js';
import type { ExchangeTiming } from '../../dispatch/server-timing.js';
import type { CallerGone } from '../../dispatch/types.js';
import { arrivalOf } from '../request.js';
import { clientGone, writeResult } from '../write-result.js';

/** What a route hands the dispatcher besides its request: the client's signal and the timing marks. */
export interface ClientSide {
  signal: CallerGone;
  timing: ExchangeTiming;
}

/** Run `dispatch` for the reply's client and write its result. */
export async function dispatchOn(reply: FastifyReply, dispatch: (client: ClientSide) => Promise<DispatchResult>): Promise<void> {
  const result = await dispatch({ signal: clientGone(reply.raw), timing: { arrivedAt: arrivalOf(reply.request), loadMs: 0, sentAt: 0 } });
  reply.hijack();
  await writeResult(reply.raw, result);
}
