// What POST /api/stacks/import was sent: `{envelope, slug?}`, or the exported .svcstack.json
// itself as the body (what `curl --data-binary @x.svcstack.json` sends, issue 22), its slug
// then from `?slug=`. The envelope's own checks (kind, schema_version, checksum) are
// src/stacks/envelope.ts's; this only finds the envelope.
import type { FastifyRequest } from 'fastify';
import { ImportStackRequestSchema, type ImportStackRequest } from '../../protocol/stacks.js';
import { parseRequest } from '../../protocol/validate.js';
import { objectBody, queryProblem, queryValue } from '../request.js';

export function importRequestOf(request: FastifyRequest): ImportStackRequest {
  const body = objectBody(request);
  // Every envelope has a kind, and the wrapped form never does (its schema is strict).
  const wrapped = Object.hasOwn(body, 'kind') ? { envelope: body } : body;
  const slug = queryValue(request, 'slug');
  if (slug === undefined) return parseRequest(ImportStackRequestSchema, wrapped);
  if (Object.hasOwn(wrapped, 'slug')) return queryProblem('slug', 'given both in the body and the query; pass one');
  return parseRequest(ImportStackRequestSchema, { ...wrapped, slug }, 'request');
}
