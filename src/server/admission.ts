// Whether a request may proceed at all, decided in one place for every route: the /v1 front
// door (front-door.ts) and Fastify's onRequest hook (app.ts) both ask admit(). Today that is
// the shutdown refusal; the auth guard (auth mode) belongs here too, deciding from the
// route's access class and the request's headers, so no path can skip it.
import type { IncomingHttpHeaders } from 'node:http';
import type { RouteAccess } from '../protocol/access.js';
import { type SvcError, SystemError } from '../protocol/errors.js';

export class Admission {
  private closing = false;

  /** From now on every request is refused with system.shutting_down (503, Retry-After: 1). */
  close(): void {
    this.closing = true;
  }

  /** The refusal for a request to a route of class `access`, or undefined when it may proceed. */
  admit(_access: RouteAccess, _headers: IncomingHttpHeaders): SvcError | undefined {
    if (this.closing) return new SystemError('system.shutting_down', 'svc is shutting down and takes no new requests.', { retry_after_s: 1 });
    return undefined;
  }
}
