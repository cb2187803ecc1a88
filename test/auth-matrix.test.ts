// The scope matrix, on the real gateway in auth mode: every route of the access table ×
// every kind of caller gets exactly the access the table grants, with zero bypasses. The
// grants below are written out by hand (not read from src/protocol/access.ts), so a change
// to the code's grants that the issue does not allow fails here.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_ACCESS_TABLE } from '../src/protocol/access.js';
import { api, type Gateway, startGateway, tempHome, type TempHome } from './helpers/gateway.js';
import { type Lan, lanSkipReason, openLan } from './helpers/lan.js';

const EXPECTED_GRANTS: Record<string, readonly string[]> = {
  admin: ['public', 'v1', 'v1-read', 'read', 'write', 'token-admin'],
  all: ['public', 'v1', 'v1-read', 'read'],
  'v1-only': ['public', 'v1', 'v1-read'],
  'read-only': ['public', 'v1-read', 'read'],
};

const SECRET = 'matrix-proxy-secret-0123456789abcdef';
const skip = lanSkipReason();
let lan: Lan;

/** A concrete path for a route pattern. */
const concrete = (pattern: string) => pattern.replace(':name', pattern.includes('images') ? 'nope.png' : 'nope').replace(':ref', 'nope').replace(':id', 'deadbeef').replace('*', 'nope');

interface Caller {
  name: string;
  headers: Record<string, string>;
  /** Through the LAN address instead of 127.0.0.1. */
  viaLan?: boolean;
  /** The classes it may reach; anything else is refused with one of `refusals`. */
  grants: readonly string[];
  refusals: readonly string[];
}

let home: TempHome;
let gateway: Gateway;
const tokens: Record<string, string> = {};
let revoked = '';
const proxy = { 'x-forwarded-email': 'admin@example.test', 'x-svc-proxy-secret': SECRET };

/** Routes whose answer, once granted, is a stream that never ends. */
const STREAMS = ['/api/events/stream', '/api/mcp/stream', '/api/agent/approvals/events'];

async function send(caller: Caller, method: string, path: string): Promise<{ status: number; code: string | undefined }> {
  const body = method === 'GET' || method === 'DELETE' ? undefined : {};
  if (caller.viaLan) {
    // From another host (a network namespace of this test's own). It is granted only public
    // routes, so the event stream is refused at once rather than left open.
    const answer = await lan.request(`${lan.url(gateway.port)}${path}`, { method, headers: caller.headers, ...(body !== undefined && { body }) });
    return { status: answer.status, code: answer.json?.error?.code };
  }
  const base = gateway.url;
  if (method === 'GET' && STREAMS.includes(path)) {
    // A stream never ends: the status line is the answer.
    const controller = new AbortController();
    const response = await fetch(`${base}${path}`, { headers: caller.headers, signal: controller.signal });
    const code = response.ok ? undefined : ((await response.json()) as { error: { code: string } }).error.code;
    controller.abort();
    return { status: response.status, code };
  }
  const answer = await api(base, path, { method, headers: caller.headers, ...(body !== undefined && { body }) });
  return { status: answer.status, code: answer.json?.error?.code };
}

beforeAll(async () => {
  if (skip) return;
  lan = await openLan();
  home = tempHome({ 'proxy-secret': `${SECRET}\n` });
  gateway = await startGateway(home.home, { env: { SVC_AUTH_ENABLED: '1' }, args: ['--host', '0.0.0.0'] });
  for (const scope of Object.keys(EXPECTED_GRANTS)) {
    const created = await api(gateway.url, '/api/auth/tokens', { method: 'POST', headers: proxy, body: { label: `matrix-${scope}`, scope } });
    expect(created.status).toBe(201);
    tokens[scope] = created.json.token;
  }
  const doomed = await api(gateway.url, '/api/auth/tokens', { method: 'POST', headers: proxy, body: { label: 'doomed', scope: 'admin' } });
  revoked = doomed.json.token;
  // Used once before revocation, so the verifier has it cached: revocation must still win.
  expect((await api(gateway.url, '/api/slots', { headers: { authorization: `Bearer ${revoked}` } })).status).toBe(200);
  expect((await api(gateway.url, `/api/auth/tokens/${doomed.json.id}`, { method: 'DELETE', headers: proxy })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  lan?.close();
  await gateway?.stop();
});

describe.skipIf(skip)(`auth mode: the scope matrix ${skip ?? ''}`, () => {
  const refusedAsNobody = ['auth.required'];
  const refusedAsBadToken = ['auth.invalid', 'auth.rate_limited'];
  const callers = (): Caller[] => [
    ...Object.entries(EXPECTED_GRANTS).map(([scope, grants]) => ({ name: `token ${scope}`, headers: { authorization: `Bearer ${tokens[scope]}` }, grants, refusals: ['auth.forbidden'] })),
    { name: 'proxy user, loopback, with the secret', headers: proxy, grants: EXPECTED_GRANTS.admin!, refusals: [] },
    { name: 'proxy header, loopback, no secret', headers: { 'x-forwarded-email': 'admin@example.test' }, grants: ['public'], refusals: refusedAsNobody },
    { name: 'proxy header, loopback, wrong secret', headers: { ...proxy, 'x-svc-proxy-secret': `${SECRET}x` }, grants: ['public'], refusals: refusedAsNobody },
    { name: 'proxy header with the secret, from the LAN', headers: proxy, viaLan: true, grants: ['public'], refusals: refusedAsNobody },
    { name: 'no credentials', headers: {}, grants: ['public'], refusals: refusedAsNobody },
    { name: 'basic credentials only', headers: { authorization: 'Basic YWRtaW46cHc=' }, grants: ['public'], refusals: refusedAsNobody },
    { name: 'an invalid token, with a valid proxy identity', headers: { ...proxy, authorization: `Bearer svc_deadbeef.${'A'.repeat(43)}` }, grants: ['public'], refusals: refusedAsBadToken },
    { name: 'a malformed bearer', headers: { authorization: 'Bearer sk-not-svc' }, grants: ['public'], refusals: refusedAsBadToken },
    { name: 'a revoked token', headers: { authorization: `Bearer ${revoked}` }, grants: ['public'], refusals: refusedAsBadToken },
  ];

  it('gives every caller exactly the access its scope grants on every route', async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const caller of callers()) {
      for (const [key, access] of Object.entries(ROUTE_ACCESS_TABLE)) {
        const [method, pattern] = key.split(' ') as [string, string];
        const verb = method === '*' ? 'POST' : method;
        const { status, code } = await send(caller, verb, concrete(pattern));
        checked += 1;
        const refused = status === 401 || status === 403 || status === 429;
        const authRefusal = refused && code?.startsWith('auth.');
        if (caller.grants.includes(access)) {
          if (authRefusal) wrong.push(`${caller.name}: ${verb} ${pattern} (${access}) refused with ${status} ${code}`);
        } else if (!authRefusal || !caller.refusals.includes(code!)) {
          wrong.push(`${caller.name}: ${verb} ${pattern} (${access}) answered ${status} ${code ?? ''}, expected ${caller.refusals.join(' or ')}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBe(callers().length * Object.keys(ROUTE_ACCESS_TABLE).length);
  }, 120_000);

  it('tells each caller what it may do (GET /api/auth/whoami), exactly what the matrix grants it', async () => {
    for (const caller of callers().filter((c) => c.grants.includes('read') && !c.viaLan)) {
      const answer = await api(gateway.url, '/api/auth/whoami', { headers: caller.headers });
      expect(answer.status, caller.name).toBe(200);
      expect([...answer.json.grants].sort(), caller.name).toEqual([...caller.grants].sort());
      expect(answer.json.auth_enabled).toBe(true);
      expect(answer.json.host_authority, caller.name).toBe(caller.grants.includes('token-admin'));
    }
    const proxied = await api(gateway.url, '/api/auth/whoami', { headers: proxy });
    expect(proxied.json.identity).toEqual({ kind: 'proxy', label: 'admin@example.test', scope: 'admin' });
  });

  it('names the scheme on every 401', async () => {
    const answer = await api(gateway.url, '/api/slots');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('never shows a token or a hash in the listing, the status, the activity log or the gateway output', async () => {
    const listing = await api(gateway.url, '/api/auth/tokens', { headers: proxy });
    expect(listing.json.tokens.length).toBe(4);
    const surfaces = [
      listing.text,
      (await api(gateway.url, '/api/status')).text,
      (await api(gateway.url, '/api/activity?limit=500', { headers: proxy })).text,
      (await api(gateway.url, '/api/events?limit=1000', { headers: proxy })).text,
      gateway.output(),
    ].join('\n');
    for (const raw of [...Object.values(tokens), revoked]) {
      const secret = raw.split('.')[1]!;
      expect(surfaces).not.toContain(secret);
    }
    expect(surfaces).not.toContain('$argon2id$');
    expect(surfaces).not.toContain(SECRET);
    writeFileSync(join(home.configRoot, 'probe.txt'), ''); // the home stays writable for the next test
  });
});
