// Whether a request may proceed at all, decided in one place for every route: the /v1 front
// door (front-door.ts) and Fastify's onRequest hook (app.ts) both ask admit(). It refuses
// while shutting down, then what a web browser must not make svc do (auth/browser-policy.ts:
// a foreign Host, a cross-site mutation, a form-like post), and otherwise asks the auth guard
// (src/auth/guard.ts) with the route's access class from the one table (protocol/access.ts),
// so no path can skip it.
import type { IncomingMessage } from 'node:http';
import type { AuthGuard, Decision } from '../auth/guard.js';
import { type BrowserRules, browserRefusal } from '../auth/browser-policy.js';
import type { RouteAccess } from '../protocol/access.js';
import { SystemError } from '../protocol/errors.js';

export class Admission {
  private closing = false;

  constructor(
    private readonly guard: AuthGuard,
    /** The browser rules of the running configuration (a reload can change them). */
    readonly browserRules: () => BrowserRules,
  ) {}

  /** From now on every request is refused with system.shutting_down (503, Retry-After: 1). */
  close(): void {
    this.closing = true;
  }

  /** The caller's identity when the request may proceed, else the refusal; a promise only while a token is verified for the first time. */
  admit(access: RouteAccess, req: IncomingMessage): Decision | Promise<Decision> {
    if (this.closing) return new SystemError('system.shutting_down', 'svc is shutting down and takes no new requests.', { retry_after_s: 1 });
    const refused = browserRefusal({ method: req.method ?? 'GET', headers: req.headers, localAddress: req.socket.localAddress }, this.browserRules());
    if (refused) return refused;
    return this.guard.check({ access, headers: req.headers, peer: req.socket.remoteAddress, connection: req.socket });
  }
}
