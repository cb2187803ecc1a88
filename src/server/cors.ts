// CORS for the origins the host listed in [api].allowed_origins (docs/auth.md, "Default mode
// on a network"): a page on such an origin may call /v1 and /api like any other client, so
// its preflight is answered here and its answers carry Access-Control-Allow-Origin. Any other
// origin gets no CORS header at all (the browser then hides the answer from the page) and its
// preflight a 403; its mutations are refused by the admission check whatever the preflight said.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { allowedOrigin, browserRefusal } from '../auth/browser-policy.js';
import { RequestError } from '../protocol/errors.js';
import type { Admission } from './admission.js';
import { renderError } from './errors.js';

const METHODS = 'GET, HEAD, POST, PUT, DELETE, PATCH';
/** Answer headers a page may read besides the CORS-safelisted ones. */
const EXPOSED = 'Retry-After, Server-Timing, WWW-Authenticate, Content-Disposition';
/** How long a browser may reuse a preflight answer, seconds. */
const PREFLIGHT_MAX_AGE_S = '600';

/**
 * For a request that carries an Origin: answer a CORS preflight (true: it is answered), or
 * add the headers an allowed origin's answer needs (false: the request goes on).
 */
export function crossOrigin(req: IncomingMessage, res: ServerResponse, admission: Admission): boolean {
  const origin = req.headers.origin!;
  const rules = admission.browserRules();
  const allowed = allowedOrigin(origin, rules);
  const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
  if (!preflight) {
    if (allowed) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-expose-headers', EXPOSED);
      res.setHeader('vary', 'Origin');
    }
    return false;
  }
  const refused = browserRefusal({ method: 'OPTIONS', headers: req.headers, localAddress: req.socket.localAddress }, rules)
    ?? (allowed ? undefined : new RequestError('request.cross_site', `a page on ${origin} may not call svc. If you trust that origin, add it to [api].allowed_origins on the host (svc config edit)`, { origin, sec_fetch_site: null }));
  if (refused) {
    const answer = renderError(refused, { method: 'OPTIONS', url: req.url ?? '/', headers: req.headers });
    res.writeHead(answer.status, answer.headers).end(answer.body);
    return true;
  }
  res.writeHead(204, {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': METHODS,
    'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '',
    'access-control-max-age': PREFLIGHT_MAX_AGE_S,
    vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  }).end();
  return true;
}
