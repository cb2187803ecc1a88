// Hostile input never costs an answer or the event loop (issue 36, item 7), on a real
// gateway: JSON nested 100,000 deep is request.too_deep on every kind of route, a name
// Object.prototype has is the resource's own not-found, a NUL is refused naming its field,
// and 40,000 unknown settings keys are answered with a bounded error while a health check
// sent meanwhile is answered too. test/fuzz.test.ts runs the same kinds of input over every route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, MAX_REPORTED_PROBLEMS } from '../src/protocol/input-bounds.js';
import { api, type Gateway, startGateway, tempHome } from './helpers/gateway.js';

let gateway: Gateway;

beforeAll(async () => {
  // Memory off: its routes parse bodies all the same, and its database need not start.
  gateway = await startGateway(tempHome({ 'svc.toml': '[memory]\nenabled = false\n' }).home);
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
});

const nested = (depth: number, key: string) => `${`{"${key}":`.repeat(depth)}1${'}'.repeat(depth)}`;
const send = (method: string, path: string, raw: string) => api(gateway.url, path, { method, raw, headers: { 'content-type': 'application/json' } });

describe('JSON nested 100,000 deep', () => {
  // The /v1 front door, Fastify's parser on /api and /mcp, a merge (settings), a slot file write.
  const routes: Array<[string, string]> = [['POST', '/v1/chat/completions'], ['POST', '/v1/embeddings'], ['PUT', '/api/settings'], ['POST', '/api/slots'], ['POST', '/api/memory/add'], ['POST', '/mcp/admin/mcp'], ['POST', '/api/stacks/import']];

  it.each([['__proto__'], ['constructor'], ['a']])('with %s as its key is request.too_deep on every kind of route, naming the limit', async (key) => {
    const body = nested(100_000, key);
    for (const [method, path] of routes) {
      const answer = await send(method, path, body);
      expect(answer.status, `${method} ${path}: ${answer.text.slice(0, 200)}`).toBe(400);
      expect(answer.json.error.code).toBe('request.too_deep');
      expect(answer.json.error.details.max_depth).toBe(MAX_JSON_DEPTH);
      expect(answer.json.error.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    }
    expect((await api(gateway.url, '/api/status')).status).toBe(200);
  });

  it('is taken up to the limit', async () => {
    const answer = await send('POST', '/v1/chat/completions', `{"model":"nope","messages":[{"role":"user","content":"hi"}],"metadata":${nested(MAX_JSON_DEPTH - 1, 'a')}}`);
    expect(answer.json.error.code).toBe('model.not_found');
  });
});

describe('a name Object.prototype has, as a path parameter', () => {
  // [path with NAME in it, the namespace of the resource's own refusal]
  const routes: Array<[string, string, string]> = [
    ['GET', '/api/models/NAME/pull/status', 'model.'], ['GET', '/api/models/NAME', 'model.'], ['GET', '/api/stacks/NAME', 'stacks.'],
    ['GET', '/api/stacks/NAME/export', 'stacks.'], ['POST', '/api/stacks/NAME/apply', 'stacks.'], ['DELETE', '/api/stacks/NAME', 'stacks.'],
    ['GET', '/api/profiles/NAME', 'profiles.'], ['GET', '/api/slots/NAME', 'slot.'], ['GET', '/api/agents/NAME', 'agent.'],
    ['GET', '/v1/models/NAME', 'model.'], ['GET', '/api/mcp/servers/NAME', 'mcp.'], ['GET', '/v1/responses/NAME', 'response.'],
  ];

  it.each([['constructor'], ['__proto__'], ['toString'], ['hasOwnProperty']])('%s is the resource\'s own 4xx on every route, never a 500 or a resource', async (name) => {
    for (const [method, template, namespace] of routes) {
      const path = template.replace('NAME', name);
      const answer = await api(gateway.url, path, { method, ...(method === 'POST' && { body: {} }) });
      expect([400, 404], `${method} ${path}: ${answer.text.slice(0, 200)}`).toContain(answer.status);
      expect(answer.json.error.code.startsWith(namespace), `${method} ${path}: ${answer.json.error.code}`).toBe(true);
    }
  });

  it('is a slug a new stack may take (it was "taken" by Object.prototype)', async () => {
    const created = await api(gateway.url, '/api/stacks', { method: 'POST', body: { slug: 'constructor', name: 'Constructor' } });
    expect(created.status, created.text).toBe(201);
    const read = await api(gateway.url, '/api/stacks/constructor');
    expect(read.json).toMatchObject({ slug: 'constructor', seed: false, name: 'Constructor' });
  });
});

describe('a NUL character', () => {
  const nul = (path: string, method: string, body: unknown) => api(gateway.url, path, { method, body });

  it('is refused naming its field wherever no store or program can hold it', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/api/memory/add', { text: 'a\u0000b' }, 'text'],
      ['POST', '/api/memory/add', { text: 'ok', metadata: { note: 'x\u0000' } }, 'metadata.note'],
      ['POST', '/api/slots', { name: 'chat', model: 'tiny', extra_args: '--threads 4\u0000--log-file /tmp/x' }, 'extra_args'],
      ['PUT', '/api/slots/chat', { extra_args: '\u0000' }, 'extra_args'],
      ['POST', '/api/profiles', { name: 'p', flags: '--a\u0000' }, 'flags'],
      ['PUT', '/api/settings', { memory: { pgvector_url: 'postgres://h/\u0000' } }, 'memory.pgvector_url'],
    ];
    for (const [method, path, body, field] of cases) {
      const answer = await nul(path, method, body);
      expect(answer.status, `${method} ${path}: ${answer.text.slice(0, 300)}`).toBe(400);
      expect(answer.json.error.code).toBe('request.invalid');
      expect(answer.json.error.details.problems[0].path).toBe(field);
    }
  });

  it('goes through on /v1, where the engine takes the body as it came', async () => {
    const answer = await nul('/v1/chat/completions', 'POST', { model: 'nope', messages: [{ role: 'user', content: 'a\u0000b' }] });
    expect(answer.json.error.code).toBe('model.not_found');
  });
});

describe('a request with 40,000 unknown keys', () => {
  const unknownKeys = (count: number) => JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, i) => [`unknown_key_${i}`, i])));

  it('is answered with the first problems and a count, and a health check sent meanwhile is answered', async () => {
    const put = send('PUT', '/api/settings', unknownKeys(40_000));
    const health = api(gateway.url, '/api/status');
    const [settings, status] = await Promise.all([put, health]);
    expect(status.status).toBe(200);
    expect(settings.status).toBe(400);
    expect(settings.json.error.code).toBe('config.invalid');
    expect(settings.json.error.details.problems).toHaveLength(MAX_REPORTED_PROBLEMS);
    expect(settings.json.error.details.problems_omitted).toBe(40_000 - MAX_REPORTED_PROBLEMS);
    expect(settings.json.error.message).toContain(`and ${40_000 - MAX_REPORTED_PROBLEMS} more`);
    expect(settings.text.length).toBeLessThan(8 * 1024);
  }, 120_000);

  it('is bounded the same on a route that validates with a request schema', async () => {
    const answer = await send('POST', '/api/slots', unknownKeys(40_000));
    expect(answer.json.error.code).toBe('request.invalid');
    expect(answer.json.error.details.problems).toHaveLength(MAX_REPORTED_PROBLEMS);
    expect(answer.json.error.details.problems_omitted).toBeGreaterThanOrEqual(40_000 - MAX_REPORTED_PROBLEMS);
    expect(answer.text.length).toBeLessThan(16 * 1024);
  }, 120_000);

  it('a 100 KB key name comes back as its first characters, not twice over', async () => {
    const answer = await send('PUT', '/api/settings', JSON.stringify({ ['k'.repeat(100_000)]: 1 }));
    expect(answer.json.error.code).toBe('config.invalid');
    expect(answer.json.error.details.problems[0].path).toMatch(/^k{200}… \(99800 more characters\)$/);
    expect(answer.text.length).toBeLessThan(8 * 1024);
  });
});
