// Every /v1 request an agent makes is an activity row attributed to it (actor `agent:<name>`),
// which GET /api/agents/<name>/activity reads back. The agent is the X-Svc-Agent header (as
// memory reads it) or, in auth mode, its token (labelled agent-<name> by the install). Requests
// of no agent write no row: the /v1 hot path stays as it was for every other client. A failed
// request's row says the gateway's error (answer-error.ts).
import type { IncomingHttpHeaders } from 'node:http';
import type { Identity } from '../auth/identity.js';
import { agentActor } from '../protocol/agents.js';
import { AGENT_ID_PATTERN } from '../protocol/memory.js';
import { agentOfTokenLabel } from './agent-wiring.js';
import { tapAnswer } from './answer-error.js';
import type { ServerContext } from './context.js';
import type { DirectHandler } from './front-door.js';

/** The agent a request comes from: its token's (auth mode) before the header it sends. */
export function agentOf(headers: IncomingHttpHeaders, identity: Identity | undefined): string | undefined {
  if (identity && 'kind' in identity && identity.kind === 'token') {
    const byToken = agentOfTokenLabel(identity.label);
    if (byToken) return byToken;
  }
  const header = headers['x-svc-agent'];
  const value = Array.isArray(header) ? header[0] : header;
  return value && AGENT_ID_PATTERN.test(value) ? value : undefined;
}

/** `handler`, recording one activity row when the request's answer ends if an agent sent it. */
export function attributed(ctx: ServerContext, route: string, handler: DirectHandler): DirectHandler {
  return (request) => {
    const agent = agentOf(request.req.headers, request.identity);
    if (agent) {
      const model = typeof request.body.model === 'string' ? request.body.model.slice(0, 200) : null;
      // What the answer said when it failed (its envelope, or a stream's error event): the row
      // carries it, so the agent's runner can say why (svc agent run, docs/agents.md).
      const answer = tapAnswer(request.res);
      request.res.once('close', () => {
        const status = request.res.statusCode;
        const error = answer.read();
        const outcome = status < 400 && request.res.writableFinished && !error ? 'ok' : 'error';
        ctx.record({
          action: 'v1.request', target: model ?? route, actor: agentActor(agent), outcome,
          message: `POST ${route} ${status}${error ? `: ${error.code}: ${error.message}` : ''}`,
          details: { agent, tool: `POST ${route}`, args: { model, stream: request.body.stream === true }, gated: false, status, ...(error && { error }) },
        });
      });
    }
    return handler(request);
  };
}
