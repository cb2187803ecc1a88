// Bad input on every /api/memory route, the default engine with no daemon, and memory turned off.
// Requests are checked (identity, then body) before the engine is: these need no database
// and no embedding slot, so the gateway runs the schema's default engine (hindsight), its
// daemon's address a port nothing listens on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../src/protocol/errors.js';
import { api, type Gateway, startGateway, tempHome, type TempHome } from './helpers/gateway.js';
import { freePort } from './helpers/ports.js';

let home: TempHome;
let gw: Gateway;

beforeAll(async () => {
  home = tempHome({ 'svc.toml': `[memory]\nhindsight_url = "http://127.0.0.1:${await freePort()}"\nhindsight_reprobe_interval_s = 0\n` });
  gw = await startGateway(home.home);
}, 30_000);

afterAll(async () => {
  await gw?.stop();
});

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => api(gw.url, path, { method, body, headers });

function expectProblem(answer: Awaited<ReturnType<typeof api>>, code: string, path?: string) {
  expect(answer.status, answer.text).toBe(ERROR_CODES[code as ErrorCode].status);
  expect(answer.json.error.code).toBe(code);
  if (path !== undefined) expect(answer.json.error.details.problems.map((p: { path: string }) => p.path)).toContain(path);
}

describe('bad input on the memory routes', () => {
  it('add: a missing text, a wrong type, an oversize text, a source field, not an object', async () => {
    expectProblem(await call('POST', '/api/memory/add', {}), 'request.invalid', 'text');
    expectProblem(await call('POST', '/api/memory/add', { text: 42 }), 'request.invalid', 'text');
    expectProblem(await call('POST', '/api/memory/add', { text: 'é'.repeat(33 * 1024) }), 'request.invalid', 'text');
    expectProblem(await call('POST', '/api/memory/add', { text: 'ok', source: 'me' }), 'request.invalid', 'source');
    expectProblem(await call('POST', '/api/memory/add', { text: 'ok', tags: 'one' }), 'request.invalid', 'tags');
    expectProblem(await call('POST', '/api/memory/add', ['text']), 'request.not_an_object');
  });

  it('search and recall: a missing query, wrong types, values out of range', async () => {
    expectProblem(await call('POST', '/api/memory/search', {}), 'request.invalid', 'query');
    expectProblem(await call('POST', '/api/memory/search', { query: 'a', limit: 'ten' }), 'request.invalid', 'limit');
    expectProblem(await call('POST', '/api/memory/search', { query: 'a', limit: 0 }), 'request.invalid', 'limit');
    expectProblem(await call('POST', '/api/memory/search', { query: 'a', before: 'yesterday' }), 'request.invalid', 'before');
    expectProblem(await call('POST', '/api/memory/recall', {}), 'request.invalid', 'query');
    expectProblem(await call('POST', '/api/memory/recall', { query: 'a', max_tokens: '4k' }), 'request.invalid', 'max_tokens');
    expectProblem(await call('POST', '/api/memory/recall', { query: 'a', types: ['dreams'] }), 'request.invalid', 'types[0]');
    expectProblem(await call('POST', '/api/memory/recall', { query: 'a', tags_match: 'some' }), 'request.invalid', 'tags_match');
  });

  it('list and delete: a bad limit, missing or empty ids', async () => {
    expectProblem(await call('GET', '/api/memory/list?limit=abc'), 'request.invalid', 'limit');
    expectProblem(await call('GET', '/api/memory/list?limit=0'), 'request.invalid', 'limit');
    expectProblem(await call('POST', '/api/memory/delete', {}), 'request.invalid', 'ids');
    expectProblem(await call('POST', '/api/memory/delete', { ids: 'abc' }), 'request.invalid', 'ids');
    expectProblem(await call('POST', '/api/memory/delete', { ids: [] }), 'request.invalid', 'ids');
  });

  it('an agent id outside the pattern is refused on every data route', async () => {
    for (const agent of ['two words', 'x'.repeat(65), "o'hara;--", 'a/../b']) {
      const headers = { 'x-svc-agent': agent };
      expectProblem(await call('POST', '/api/memory/add', { text: 'hi' }, headers), 'memory.agent_id_invalid');
      expectProblem(await call('POST', '/api/memory/search', { query: 'hi' }, headers), 'memory.agent_id_invalid');
      expectProblem(await call('POST', '/api/memory/recall', { query: 'hi' }, headers), 'memory.agent_id_invalid');
      expectProblem(await call('GET', '/api/memory/list', undefined, headers), 'memory.agent_id_invalid');
      expectProblem(await call('POST', '/api/memory/delete', { ids: ['x'] }, headers), 'memory.agent_id_invalid');
    }
  });

  it('bank ids are checked, and a delete needs its confirmation', async () => {
    expectProblem(await call('PUT', '/api/memory/banks/a.b', {}), 'memory.invalid_bank');
    expectProblem(await call('PUT', `/api/memory/banks/${encodeURIComponent("x'; DROP TABLE banks;--")}`, {}), 'memory.invalid_bank');
    expectProblem(await call('PUT', '/api/memory/banks/ok', { dimension: 'big' }), 'request.invalid', 'dimension');
    expectProblem(await call('DELETE', '/api/memory/banks/shared'), 'memory.confirm_required');
    expectProblem(await call('DELETE', '/api/memory/banks/shared', { confirm: 'other' }), 'memory.confirm_required');
  });
});

describe('memory on the default engine with its daemon down, and turned off', () => {
  it('answers reads from the (empty) outbox and refuses bank administration with 503 memory.engine_unreachable; the engine route stays 200', async () => {
    expect((await call('POST', '/api/memory/search', { query: 'hi' })).json).toEqual({ items: [] });
    expect((await call('GET', '/api/memory/list')).json).toEqual({ items: [], next_cursor: null });
    for (const path of ['/api/memory/banks', '/api/memory/banks/shared/stats', '/api/memory/banks/shared/tags']) {
      const answer = await call('GET', path);
      expect(answer.status, `${path}: ${answer.text}`).toBe(503);
      expect(answer.json.error.code).toBe('memory.engine_unreachable');
    }
    const engine = await call('GET', '/api/memory/engine');
    expect(engine.status).toBe(200);
    expect(engine.json).toMatchObject({ enabled: true, engine: 'hindsight', reachable: false, state: 'degraded' });
  });

  it('answers 503 memory.unavailable once [memory].enabled = false', async () => {
    const put = await call('PUT', '/api/settings', { memory: { enabled: false } });
    expect(put.status, put.text).toBe(200);
    const answer = await call('POST', '/api/memory/add', { text: 'hi' });
    expect(answer.status).toBe(503);
    expect(answer.json.error.code).toBe('memory.unavailable');
    const engine = await call('GET', '/api/memory/engine');
    expect(engine.status).toBe(200);
    expect(engine.json).toMatchObject({ enabled: false, reachable: false });
  });
});
