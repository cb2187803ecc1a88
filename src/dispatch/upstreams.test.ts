// UpstreamDirectory against real local HTTP servers acting as remote OpenAI-compatible
// endpoints: which endpoints count, headers, static lists, prefixes, the cache, the
// parallel cap, the prefetch timeout, failures, and single-flight.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResolvedConfig } from '../config/load.js';
import { ProvidersFileSchema, UpstreamsFileSchema } from '../config/schema/remote.js';
import type { SvcError } from '../protocol/errors.js';
import { CATALOG_TTL_MS, exposeModelId, parseModelList, stripModelPrefix, UpstreamDirectory } from './upstreams.js';

interface Remote {
  url: string;
  /** Requests seen, in order. */
  requests: IncomingMessage[];
  /** Requests being answered right now, and the most at once. */
  open: number;
  maxOpen: number;
  /** Requests answered, and requests the client gave up on before any answer. */
  answered: number;
  abandoned: number;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
});

/** A local OpenAI-compatible endpoint: GET /v1/models answers `ids` after `delayMs`, or never when `hang`. */
async function remote(ids: string[], options: { delayMs?: number; status?: number; body?: string; hang?: boolean } = {}): Promise<Remote> {
  const state: Remote = { url: '', requests: [], open: 0, maxOpen: 0, answered: 0, abandoned: 0 };
  const server = createServer((req, res) => {
    state.requests.push(req);
    state.open++;
    state.maxOpen = Math.max(state.maxOpen, state.open);
    const timer = options.hang ? undefined : setTimeout(() => {
      state.open--;
      state.answered++;
      if (req.url !== '/v1/models') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(options.status ?? 200, { 'content-type': 'application/json' });
      res.end(options.body ?? JSON.stringify({ object: 'list', data: ids.map((id) => ({ id, object: 'model', owned_by: 'x' })) }));
    }, options.delayMs ?? 0);
    res.on('close', () => {
      if (!res.writableEnded) {
        clearTimeout(timer);
        state.open--;
        state.abandoned++;
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}

/** A URL where nothing listens. */
async function refusingUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}/v1`;
}

function config(files: { providers?: unknown; upstreams?: unknown; timeoutS?: number; cap?: number }): ResolvedConfig {
  return {
    providers: ProvidersFileSchema.parse({ providers: files.providers ?? {} }),
    upstreams: UpstreamsFileSchema.parse({ upstreams: files.upstreams ?? {} }),
    svc: { dispatcher: { prefetch_timeout_s: files.timeoutS ?? 8, prefetch_parallel_cap: files.cap ?? 4 } },
  } as unknown as ResolvedConfig;
}

const directory = (cfg: ResolvedConfig, env: NodeJS.ProcessEnv = {}, now?: () => number) => new UpstreamDirectory(() => cfg, env, now ? { now } : {});

describe('endpoints', () => {
  it('lists enabled providers, then enabled upstreams without a slot', () => {
    const cfg = config({
      providers: { p1: { base_url: 'http://a.test/v1/' }, off: { base_url: 'http://b.test/v1', enabled: false } },
      upstreams: { u1: { base_url: 'http://c.test/v1' }, chat: { base_url: 'http://127.0.0.1:8081/v1', slot: 'chat' }, p1: { base_url: 'http://d.test/v1' } },
    });
    const eps = directory(cfg).endpoints();
    expect(eps.map((e) => `${e.source}:${e.name}`)).toEqual(['provider:p1', 'upstream:u1', 'upstream:p1']);
    expect(eps[0]!.baseUrl).toBe('http://a.test/v1');
  });

  it('endpoint(): configured headers plus a bearer from api_key_env when the variable is set', () => {
    const cfg = config({
      providers: { p: { base_url: 'http://a.test/v1', api_key_env: 'P_KEY', headers: { 'X-Team': 'lab', Authorization: 'nope' }, timeout_s: 30 } },
      upstreams: { u: { base_url: 'http://c.test/v1', api_key_env: 'UNSET_KEY' } },
    });
    const dir = directory(cfg, { P_KEY: 'sk-secret' });
    expect(dir.endpoint('p')).toEqual({ name: 'p', baseUrl: 'http://a.test/v1', origin: 'http://a.test', basePath: '/v1', headers: { 'x-team': 'lab', authorization: 'Bearer sk-secret' }, timeoutMs: 30_000, modelPrefix: null, responses: false });
    expect(dir.endpoint('u').headers).toEqual({});
  });

  it('endpoint() of an unknown or disabled name is dispatch.no_route', () => {
    const dir = directory(config({ upstreams: { off: { base_url: 'http://c.test/v1', enabled: false } } }));
    for (const name of ['off', 'nope']) {
      try {
        dir.endpoint(name);
        expect.unreachable();
      } catch (error) {
        expect((error as SvcError).code).toBe('dispatch.no_route');
      }
    }
  });

  it('a provider and an upstream of the same name: both listed; lookups follow the model', async () => {
    const cfg = config({
      providers: { lab: { base_url: 'http://a.test/v1', models: ['m1'], model_prefix: 'or' } },
      upstreams: { lab: { base_url: 'http://c.test/v1', models: ['m2'] } },
    });
    const dir = directory(cfg);
    expect(await dir.catalogs()).toEqual([{ name: 'lab', modelIds: ['or/m1'] }, { name: 'lab', modelIds: ['m2'] }]);
    expect(dir.endpoint('lab', 'm2').baseUrl).toBe('http://c.test/v1');
    expect(dir.endpoint('lab', 'or/m1').baseUrl).toBe('http://a.test/v1');
    expect(dir.endpoint('lab').baseUrl).toBe('http://a.test/v1');
    expect(dir.upstreamModel('lab', 'or/m1')).toBe('m1');
    expect(dir.upstreamModel('lab', 'm2')).toBe('m2');
  });
});

describe('model ids', () => {
  it('static lists are used as they are, without a request', async () => {
    const r = await remote(['fetched']);
    const dir = directory(config({ upstreams: { u: { base_url: r.url, models: ['a', 'b'] } } }));
    expect(await dir.catalogs()).toEqual([{ name: 'u', modelIds: ['a', 'b'] }]);
    expect(r.requests).toHaveLength(0);
  });

  it('model_prefix: ids exposed as <prefix>/<id>; upstreamModel strips it back', async () => {
    const r = await remote(['llama-3', 'org/qwen']);
    const dir = directory(config({ providers: { or: { base_url: r.url, model_prefix: 'or' } } }));
    expect(await dir.catalogs()).toEqual([{ name: 'or', modelIds: ['or/llama-3', 'or/org/qwen'] }]);
    expect(dir.upstreamModel('or', 'or/org/qwen')).toBe('org/qwen');
    expect(dir.upstreamModel('or', 'other')).toBe('other');
    expect(exposeModelId(null, 'x')).toBe('x');
    expect(stripModelPrefix('p', 'p/x')).toBe('x');
    expect(stripModelPrefix('p', 'px')).toBe('px');
  });

  it('fetches GET <base_url>/models with the bearer and configured headers', async () => {
    const r = await remote(['m1', 'm2', 'm1']);
    const dir = directory(config({ upstreams: { u: { base_url: `${r.url}/`, api_key_env: 'U_KEY', headers: { 'X-Org': 'lab' } } } }), { U_KEY: 'k-123' });
    expect(await dir.catalogs()).toEqual([{ name: 'u', modelIds: ['m1', 'm2'] }]);
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]!.url).toBe('/v1/models');
    expect(r.requests[0]!.headers.authorization).toBe('Bearer k-123');
    expect(r.requests[0]!.headers['x-org']).toBe('lab');
  });

  it('a warm list is reused; after CATALOG_TTL_MS it is fetched again', async () => {
    const r = await remote(['m1']);
    let now = 1_000_000;
    const dir = directory(config({ upstreams: { u: { base_url: r.url } } }), {}, () => now);
    await dir.catalogs();
    now += CATALOG_TTL_MS - 1;
    await dir.catalogs();
    expect(r.requests).toHaveLength(1);
    expect(dir.cachedCatalogs()).toEqual([{ name: 'u', modelIds: ['m1'] }]);
    now += 1;
    expect(dir.cachedCatalogs()).toEqual([{ name: 'u', modelIds: [] }]);
    await dir.catalogs();
    expect(r.requests).toHaveLength(2);
  });

  it('single-flight: 10 concurrent catalogs() make exactly one request', async () => {
    const r = await remote(['m1'], { delayMs: 100 });
    const dir = directory(config({ upstreams: { u: { base_url: r.url } } }));
    const results = await Promise.all(Array.from({ length: 10 }, () => dir.catalogs()));
    expect(r.requests).toHaveLength(1);
    for (const result of results) expect(result).toEqual([{ name: 'u', modelIds: ['m1'] }]);
  });

  it('at most prefetch_parallel_cap fetches at once', async () => {
    const r = await remote(['m'], { delayMs: 80 });
    const upstreams = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`u${i}`, { base_url: r.url }]));
    const dir = directory(config({ upstreams, cap: 2 }));
    const result = await dir.catalogs();
    expect(result.map((c) => c.modelIds)).toEqual(Array.from({ length: 6 }, () => ['m']));
    expect(r.requests).toHaveLength(6);
    expect(r.maxOpen).toBe(2);
  });

  it('a silent endpoint contributes nothing within prefetch_timeout_s, its fetch is aborted, keeps its error, and is asked again next call', async () => {
    const fast = await remote(['quick']);
    // Never answers: catalogs() can only resolve through the prefetch deadline.
    const silent = await remote(['late'], { hang: true });
    const dir = directory(config({ upstreams: { fast: { base_url: fast.url }, silent: { base_url: silent.url } }, timeoutS: 0.3 }));
    expect(await dir.catalogs()).toEqual([{ name: 'fast', modelIds: ['quick'] }, { name: 'silent', modelIds: [] }]);
    expect(silent.answered).toBe(0);
    // The deadline aborts the fetch itself: the silent server sees its client leave.
    await expect.poll(() => silent.abandoned, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => dir.status().find((s) => s.name === 'silent')!.lastError?.message, { timeout: 10_000 }).toMatch(/did not answer within 0\.3 s/);
    const status = dir.status().find((s) => s.name === 'silent')!;
    expect(status.warm).toBe(false);
    await dir.catalogs();
    expect(fast.requests).toHaveLength(1);
    expect(silent.requests).toHaveLength(2);
    expect(silent.answered).toBe(0);
  });

  it('a refusing endpoint and a bad answer: no models, the error remembered, others unaffected', async () => {
    const good = await remote(['ok']);
    const broken = await remote([], { status: 500 });
    const odd = await remote([], { body: '{"models":[]}' });
    const refused = await refusingUrl();
    const dir = directory(config({ upstreams: { good: { base_url: good.url }, broken: { base_url: broken.url }, odd: { base_url: odd.url }, gone: { base_url: refused } } }));
    expect(await dir.catalogs()).toEqual([
      { name: 'good', modelIds: ['ok'] }, { name: 'broken', modelIds: [] }, { name: 'odd', modelIds: [] }, { name: 'gone', modelIds: [] },
    ]);
    const errors = Object.fromEntries(dir.status().map((s) => [s.name, s.lastError?.message ?? null]));
    expect(errors.good).toBeNull();
    expect(errors.broken).toMatch(/answered HTTP 500/);
    expect(errors.odd).toMatch(/no "data" list/);
    expect(errors.gone).toMatch(/failed: fetch failed \(ECONNREFUSED\)/);
  });

  it('the API key never appears in status', async () => {
    const dir = directory(config({ upstreams: { gone: { base_url: await refusingUrl(), api_key_env: 'K' } } }), { K: 'sk-very-secret' });
    await dir.catalogs();
    expect(JSON.stringify(dir.status())).not.toContain('sk-very-secret');
  });

  it('a caller whose signal aborts stops waiting; the shared fetch still fills the cache', async () => {
    const r = await remote(['m1'], { delayMs: 200 });
    const dir = directory(config({ upstreams: { u: { base_url: r.url } } }));
    const abort = new AbortController();
    const first = dir.catalogs(abort.signal);
    const second = dir.catalogs();
    setTimeout(() => abort.abort(new Error('client left')), 20);
    await expect(first).rejects.toThrow('client left');
    expect(await second).toEqual([{ name: 'u', modelIds: ['m1'] }]);
    expect(r.requests).toHaveLength(1);
  });

  it('a changed base_url starts a fresh cache entry', async () => {
    const a = await remote(['from-a']);
    const b = await remote(['from-b']);
    let cfg = config({ upstreams: { u: { base_url: a.url } } });
    const dir = new UpstreamDirectory(() => cfg, {});
    expect(await dir.catalogs()).toEqual([{ name: 'u', modelIds: ['from-a'] }]);
    cfg = config({ upstreams: { u: { base_url: b.url } } });
    expect(await dir.catalogs()).toEqual([{ name: 'u', modelIds: ['from-b'] }]);
  });

  it('parseModelList: the OpenAI shape, ids deduplicated, junk skipped', () => {
    expect(parseModelList({ data: [{ id: 'a' }, { id: '' }, { nope: 1 }, null, { id: 'a' }, { id: 'b' }] })).toEqual(['a', 'b']);
    expect(() => parseModelList([{ id: 'a' }])).toThrow(/no "data" list/);
  });
});
