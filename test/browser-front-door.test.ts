// What a web page can make a default-mode gateway do (docs/auth.md, "Default mode on a
// network"), with the exact headers browsers send: DNS rebinding (a foreign Host), cross-site
// mutations (Origin, Sec-Fetch-Site) and form-like posts are refused on every route of the
// access table before any handler runs; listed origins get CORS done properly; API clients
// (no Origin) keep working.
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

  it('refuses a form-like POST (no JSON, no X- or Authorization header) on every POST route', async () => {
    const wrong: string[] = [];
    for (const { path } of mutations.filter((r) => r.method === 'POST')) {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
        const answer = await rawRequest(gateway.url, path, { method: 'POST', headers: type ? { 'content-type': type } : {}, body: type ? 'a=1' : undefined });
        if (answer.status !== 403 || answer.json?.error?.code !== 'request.form_post') wrong.push(`POST ${path} ${type}: ${answer.status} ${answer.json?.error?.code}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 60_000);

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
    expect(post.json.error.code).not.toMatch(/^request\.(cross_site|form_post|unknown_host)$/);
    expect(post.headers['access-control-allow-origin']).toBe(TRUSTED);
    expect(post.headers.vary).toContain('Origin');

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
