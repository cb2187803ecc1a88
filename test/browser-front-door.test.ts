// What a web page can make a default-mode gateway do (docs/auth.md, "Default mode on a
// network"), with the exact headers browsers send: DNS rebinding (a foreign Host), cross-site
// mutations (Origin, Sec-Fetch-Site) and form-like posts a browser marks as sent by a page
// elsewhere are refused on every route of the access table before any handler runs; the same
// posts from a tool (no browser header) are served; listed origins get CORS done properly;
// API clients (no Origin) keep working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_ACCESS_TABLE } from '../src/protocol/access.js';
import { api, type Gateway, startGateway, tempHome } from './helpers/gateway.js';
import { concretePath, rawRequest } from './helpers/raw-http.js';

const TRUSTED = 'http://trusted.test:3000';
let gateway: Gateway;
const routes = Object.keys(ROUTE_ACCESS_TABLE).map((key) => {
  const [method, pattern] = key.split(' ') as [string, string];
  return { method: method === '*' ? 'POST' : method, path: concretePath(pattern) };
});
const mutations = routes.filter((r) => r.method !== 'GET');
const posts = mutations.filter((r) => r.method === 'POST');
/** What the admission check refuses with, before any route runs. */
const ADMISSION_REFUSALS = /^request\.(cross_site|form_post|unknown_host)$/;
/**
 * How browsers mark a form's or a no-cors fetch's POST from a page elsewhere when they send
 * no Origin: Sec-Fetch-Site same-site, or (browsers without Sec-Fetch-*, such as Firefox
 * before 70 on a form) a Referer from another origin, or the mode and navigation headers alone.
 */
const BROWSER_MARKS: Record<string, string>[] = [
  { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'empty' },
  { referer: 'http://attacker.example/cats.html', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:68.0) Gecko/20100101 Firefox/68.0' },
  { 'sec-fetch-mode': 'navigate' },
  { 'upgrade-insecure-requests': '1' },
];
/** What Chromium sends with fetch(url, {method: 'POST', mode: 'no-cors', body: 'x'}) from a page on attacker.example. */
const noCors = { origin: 'http://attacker.example', 'content-type': 'text/plain;charset=UTF-8', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'empty', accept: '*/*' };

beforeAll(async () => {
  const home = tempHome({ 'svc.toml': `[api]\npublic_hostnames = ["svc.lan"]\nallowed_origins = ["${TRUSTED}"]\n` });
  gateway = await startGateway(home.home);
});
afterAll(async () => {
  await gateway?.stop();
});

describe('DNS rebinding', () => {
  it('refuses a foreign Host on every route, reads included, before any handler runs', async () => {
    const wrong: string[] = [];
    for (const { method, path } of routes) {
      const answer = await rawRequest(gateway.url, path, { method, headers: { host: `attacker.example:${gateway.port}`, 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
      if (answer.status !== 421 || answer.json?.error?.code !== 'request.unknown_host') wrong.push(`${method} ${path}: ${answer.status} ${answer.json?.error?.code}`);
    }
    expect(wrong).toEqual([]);
  }, 60_000);

  it('mints no token for a rebound page', async () => {
    const answer = await rawRequest(gateway.url, '/api/auth/tokens', { method: 'POST', headers: { host: `attacker.example:${gateway.port}`, 'content-type': 'application/json' }, body: '{"label":"x","scope":"admin"}' });
    expect([answer.status, answer.json.error.code]).toEqual([421, 'request.unknown_host']);
    expect(answer.text).not.toContain('svc_');
    expect((await api(gateway.url, '/api/auth/tokens')).json.tokens).toEqual([]);
  });

  it('answers to its own names: loopback, localhost, *.localhost and the declared ones', async () => {
    for (const host of [`127.0.0.1:${gateway.port}`, `localhost:${gateway.port}`, `app.localhost:${gateway.port}`, 'svc.lan', `SVC.LAN:${gateway.port}`]) {
      expect((await rawRequest(gateway.url, '/api/status', { headers: { host } })).status, host).toBe(200);
    }
    for (const host of ['', 'svc.lan.attacker.example', '10.1.2.3']) {
      expect((await rawRequest(gateway.url, '/api/status', { headers: { host } })).status, host).toBe(421);
    }
  });
});

describe('cross-site requests', () => {
  it('refuses a cross-site Origin on every mutating route, whatever the content type', async () => {
    const wrong: string[] = [];
    for (const { method, path } of mutations) {
      const variants: Record<string, string>[] = [{ origin: 'http://attacker.example' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }];
      for (const variant of variants) {
        const headers = { ...variant, 'content-type': 'application/json' };
        const answer = await rawRequest(gateway.url, path, { method, headers, body: '{}' });
        if (answer.status !== 403 || answer.json?.error?.code !== 'request.cross_site') wrong.push(`${method} ${path} ${JSON.stringify(headers)}: ${answer.status} ${answer.json?.error?.code}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 60_000);

  it('serves a tool\'s form-typed POST (no browser header) on every POST route: the route itself answers', async () => {
    const wrong: string[] = [];
    for (const { path } of posts) {
      // Not text/plain: Fastify parses it, so a route that reads no body would run (and change things).
      for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
        const answer = await rawRequest(gateway.url, path, { method: 'POST', headers: { 'content-type': type, 'user-agent': 'curl/8.5.0', accept: '*/*' }, body: 'a=1' });
        if (answer.status === 403 || ADMISSION_REFUSALS.test(answer.json?.error?.code)) wrong.push(`POST ${path} ${type}: ${answer.status} ${answer.json?.error?.code}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 60_000);

  it('refuses that POST on every POST route when a browser\'s own headers say a page elsewhere sent it', async () => {
    const wrong: string[] = [];
    for (const { path } of posts) {
      for (const marks of BROWSER_MARKS) {
        const headers = { 'content-type': 'text/plain;charset=UTF-8', ...marks };
        const answer = await rawRequest(gateway.url, path, { method: 'POST', headers, body: 'a=1' });
        if (answer.status !== 403 || answer.json?.error?.code !== 'request.form_post') wrong.push(`POST ${path} ${JSON.stringify(marks)}: ${answer.status} ${answer.json?.error?.code}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 60_000);

  it('serves a bare POST (curl -X POST: no type, no body) and a page of this origin\'s own', async () => {
    const senders: Record<string, string>[] = [{}, { 'user-agent': 'curl/8.5.0', accept: '*/*' }, { origin: gateway.url, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate' }, { referer: `${gateway.url}/slots` }];
    for (const headers of senders) {
      const load = await rawRequest(gateway.url, '/api/slots/nope/load', { method: 'POST', headers: { ...headers, 'content-length': '0' } });
      expect([load.status, load.json.error.code], JSON.stringify(headers)).toEqual([404, 'slot.not_found']);
    }
  });

  it('leaves the gateway as it was after a page\'s no-cors posts', async () => {
    for (const path of ['/api/slots/nope/load', '/api/updates/rollback', '/api/stacks/saber/apply', '/api/models/tiny/pull', '/api/auth/tokens', '/api/hardware/probe']) {
      const answer = await rawRequest(gateway.url, path, { method: 'POST', headers: noCors, body: '{"label":"x","scope":"admin"}' });
      expect([answer.status, answer.json.error.code], path).toEqual([403, 'request.cross_site']);
    }
    const rows = (await api(gateway.url, '/api/activity?limit=500')).json.rows ?? (await api(gateway.url, '/api/activity?limit=500')).json.items ?? [];
    expect(JSON.stringify(rows)).not.toMatch(/"action":"(stack\.apply|update\.|model\.pull|hardware\.probe|auth\.token)/);
  });
});

describe('CORS for listed origins', () => {
  it('answers their preflight and marks their answers; other origins get neither', async () => {
    const preflight = await rawRequest(gateway.url, '/v1/chat/completions', { method: 'OPTIONS', headers: { origin: TRUSTED, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(TRUSTED);
    expect(preflight.headers['access-control-allow-headers']).toBe('authorization,content-type');
    expect(String(preflight.headers['access-control-allow-methods'])).toContain('POST');
    const post = await rawRequest(gateway.url, '/v1/chat/completions', { method: 'POST', headers: { origin: TRUSTED, 'content-type': 'application/json' }, body: '{"model":"nope","messages":[]}' });
    expect(post.json.error.code).not.toMatch(ADMISSION_REFUSALS);
    expect(post.headers['access-control-allow-origin']).toBe(TRUSTED);
    expect(post.headers.vary).toContain('Origin');
    // A page on a listed origin may post what a form can (a FormData upload, say) like any client.
    const upload = await rawRequest(gateway.url, '/v1/audio/transcriptions', { method: 'POST', headers: { origin: TRUSTED, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', 'content-type': 'multipart/form-data; boundary=x' }, body: '--x--\r\n' });
    expect([upload.status, upload.json.error.code]).toEqual([400, 'request.missing_model']);

    const other = await rawRequest(gateway.url, '/v1/chat/completions', { method: 'OPTIONS', headers: { origin: 'http://attacker.example', 'access-control-request-method': 'POST' } });
    expect([other.status, other.json.error.code]).toEqual([403, 'request.cross_site']);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const read = await rawRequest(gateway.url, '/v1/models', { headers: { origin: 'http://attacker.example' } });
    expect(read.status).toBe(200);
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('keeps /v1 working for API clients, which send no Origin', async () => {
    const answer = await rawRequest(gateway.url, '/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-anything' }, body: '{"model":"nope","messages":[{"role":"user","content":"hi"}]}' });
    expect(answer.json.error.code).toBe('model.not_found');
  });
});

describe('bodies', () => {
  it('treats a body-less request that says JSON as having no body', async () => {
    const del = await rawRequest(gateway.url, '/api/stacks/nope', { method: 'DELETE', headers: { 'content-type': 'application/json' } });
    expect(del.json.error.code).toBe('stacks.not_found');
    const load = await rawRequest(gateway.url, '/api/slots/nope/load', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '0' } });
    expect(load.json.error.code).toBe('slot.not_found');
  });
});
