// The /v1 handlers' side of the dispatcher: the client exchange over a Fastify reply, and
// one way to run a dispatch so that an error after the response was taken over (hijacked
// from Fastify, whose error handler then no longer answers) still reaches the client.
import type { FastifyReply } from 'fastify';
import { endWithError } from '../../dispatch/forward.js';
import type { ClientExchange } from '../../dispatch/types.js';
import { toSvcError } from '../errors.js';
import { arrivalOf } from '../request.js';

export function clientOf(reply: FastifyReply): ClientExchange {
  return {
    res: reply.raw,
    timing: { arrivedAt: arrivalOf(reply.request), loadMs: 0, sentAt: 0 },
    takeOver: () => {
      if (!reply.sent) reply.hijack();
    },
  };
}

/** Run `dispatch` with the reply's exchange; errors before the takeover go to the error handler. */
export async function dispatchOn(reply: FastifyReply, stream: boolean, dispatch: (client: ClientExchange) => Promise<unknown>): Promise<unknown> {
  try {
    return await dispatch(clientOf(reply));
  } catch (error) {
    if (!reply.sent) throw error;
    endWithError(reply.raw, toSvcError(error), stream);
    return undefined;
  }
}
