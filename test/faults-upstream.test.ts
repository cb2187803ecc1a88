// The fault suite, bad answers and bad input (issue 6 §3): an upstream that answers garbage,
// truncated SSE or the wrong Content-Type; and every /v1 route sent random bytes, deeply
// nested JSON, huge strings and wrong types. The gateway must answer each with a clear
// envelope (no 5xx but 502/504 for upstream faults) and keep serving. How much memory the
// hostile bodies leave behind is a figure, measured by the bench (bench/lib/hostile.mjs).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/protocol/errors.js';
import { api, REPO_ROOT, startGateway, tempHome, type Gateway } from './helpers/gateway.js';
import { freePort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';
import { HOSTILE_ROUTES, hostileBodies } from './fixtures/hostile-bodies.mjs';

let upstream: ChildProcess;
let gw: Gateway;

beforeAll(async () => {
  const port = await freePort();
  upstream = spawn(process.execPath, [join(REPO_ROOT, 'test/fixtures/bad-upstream.mjs'), '--port', String(port)], { stdio: 'ignore' });
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/v1/models`)).ok, { what: 'the bad upstream to listen' });
  const home = tempHome({ 'upstreams.toml': `[upstreams.bad]\nbase_url = "http://127.0.0.1:${port}/v1"\n` });
  gw = await startGateway(home.home);
}, 30_000);

afterAll(async () => {
  await gw?.stop();
  upstream?.kill();
});

const chat = (model: string, extra: Record<string, unknown> = {}) =>
  api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model, messages: [{ role: 'user', content: 'hi' }], ...extra } });

describe('an upstream that misbehaves', () => {
  it('bytes that are not HTTP: 502 dispatch.upstream_bad_response', async () => {
    const response = await chat('garbage');
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('dispatch.upstream_bad_response');
    expect(response.json.error.details.upstream).toBe('bad');
  });

  it('an HTML page where JSON belongs: 502 dispatch.upstream_bad_response naming the Content-Type', async () => {
    const response = await chat('html');
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('dispatch.upstream_bad_response');
    expect(response.json.error.details.content_type).toContain('text/html');
  });

  it('a socket closed without an answer: 502 dispatch.upstream_unreachable', async () => {
    const response = await chat('hangup');
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('dispatch.upstream_unreachable');
  });

  it('an SSE stream that breaks off mid-event ends with one error event', async () => {
    const response = await chat('truncated', { stream: true });
    expect(response.status).toBe(200);
    const events = response.text.split('\n\n').filter((e) => e.length > 0);
    expect(events[1]).toContain('"half"');
    expect(events.at(-2)).toBe('data: {"id":"chatcmpl-bad","obj'); // the broken-off event, ended by svc
    const last = JSON.parse(events.at(-1)!.slice('data: '.length)) as { error: { code: string } };
    expect(last.error.code).toBe('dispatch.upstream_unreachable');
    expect(response.text).not.toContain('[DONE]');
  });

  it('keeps serving the upstream afterwards, streamed and not', async () => {
    expect((await chat('ok')).json.choices[0].message.content).toBe('fine');
    expect((await chat('ok', { stream: true })).text).toMatch(/"fine".*data: \[DONE\]\n\n$/s);
  });
});

const ROUTES = HOSTILE_ROUTES;

describe('hostile input on every /v1 route', () => {
  it('answers each with an envelope and no 5xx but 502/504; the gateway keeps serving', async () => {
    const statuses = new Map<number, number>();
    for (const route of ROUTES) {
      for (const [type, body] of hostileBodies('ok')) {
        const response = await fetch(`${gw.url}${route}`, { method: 'POST', headers: { 'content-type': type }, body });
        const text = await response.text();
        const what = `${route} ${type} -> ${response.status} ${text.slice(0, 200)}`;
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        expect(response.status >= 500 && ![502, 504].includes(response.status), what).toBe(false);
        if (response.status >= 400) {
          const { error } = JSON.parse(text) as { error: { code: string; message: string } };
          expect(Object.keys(ERROR_CODES), what).toContain(error.code);
          expect(ERROR_CODES[error.code as keyof typeof ERROR_CODES].status, what).toBe(response.status);
          expect(error.message.length, what).toBeGreaterThan(0);
        }
      }
    }
    expect((await api(gw.url, '/api/health/system')).status).toBe(200);
    expect((await chat('ok')).json.choices[0].message.content).toBe('fine');
    expect(statuses.size).toBeGreaterThan(1);
  }, 120_000);
});
