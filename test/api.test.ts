// The /api surface of a real gateway process: every route, every error shape, and the
// settings write path that must never lose or tear svc.toml.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startGateway, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';

const ORIGINAL_SVC_TOML = '# my settings, hand-written\n[slots]\nidle_timeout_s = 120 # two minutes\n\n[api]\nmax_body_mb = 1\n';
const CHAT_SLOT = '[slot]\nname = "chat"\nport = 8081\ndevice = "cpu"\n';

let home: TempHome;
let gw: Gateway;

beforeAll(async () => {
  home = tempHome({ 'svc.toml': ORIGINAL_SVC_TOML, 'slots/chat.toml': CHAT_SLOT });
  gw = await startGateway(home.home);
});
afterAll(async () => {
  await gw?.stop();
});

const svcToml = () => readFileSync(join(home.configRoot, 'svc.toml'));

describe('open status routes', () => {
  it('GET /api/health/system reports liveness and checks', async () => {
    const { status, json } = await api(gw.url, '/api/health/system');
    expect(status).toBe(200);
    expect(json).toMatchObject({ status: 'ok', checks: { config: { ok: true }, activity_db: { ok: true } } });
    expect(json.host.mem_available_mb).toBeGreaterThan(0);
  });

  it('GET /api/status gives version, uptime, config root and the slot summary', async () => {
    const { json } = await api(gw.url, '/api/status');
    const pkg = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')) as { version: string };
    expect(json.version).toBe(pkg.version);
    expect(json.config_root).toBe(home.configRoot);
    expect(json.home_source).toBe('SVC_HOME');
    expect(json.uptime_s).toBeGreaterThanOrEqual(0);
    expect(json.slots).toMatchObject({ total: 1, enabled: 1, slots: [{ name: 'chat', device: 'cpu', state: 'stopped', port: 8081 }] });
  });

  it('GET /api/features and /api/config/urls', async () => {
    expect((await api(gw.url, '/api/features')).json).toMatchObject({ auth_enabled: false, activity_log: true });
    const urls = (await api(gw.url, '/api/config/urls')).json;
    expect(urls.v1).toBe(`http://127.0.0.1:${gw.port}/v1`);
    expect(urls.api).toBe(`http://127.0.0.1:${gw.port}/api`);
  });

  it('install state flips once on POST /api/install/complete', async () => {
    expect((await api(gw.url, '/api/install/state')).json).toEqual({
      completed: false, completed_at: null, completed_version: null, first_run: true, has_models: false, has_default_slot: true, sentinel_path: join(home.stateRoot, 'install.json'),
    });
    const first = await api(gw.url, '/api/install/complete', { method: 'POST' });
    expect(first.json).toMatchObject({ completed: true, first_run: false });
    const second = await api(gw.url, '/api/install/complete', { method: 'POST' });
    expect(second.json.completed_at).toBe(first.json.completed_at);
    expect(existsSync(join(home.stateRoot, 'install.json'))).toBe(true);
  });
});

describe('every failure is an error envelope', () => {
  it('unknown route: 404 request.unknown_route', async () => {
    const { status, json } = await api(gw.url, '/api/no/such/thing');
    expect(status).toBe(404);
    expect(json.error).toMatchObject({ code: 'request.unknown_route', details: { path: '/api/no/such/thing' } });
    expect(typeof json.error.message).toBe('string');
  });

  it('wrong method: 405 with Allow', async () => {
    const { status, json, headers } = await api(gw.url, '/api/status', { method: 'DELETE' });
    expect(status).toBe(405);
    expect(json.error.code).toBe('request.method_not_allowed');
    expect(headers.get('allow')).toBe('GET');
  });

  it('malformed JSON: 400 request.invalid_json', async () => {
    const { status, json } = await api(gw.url, '/api/settings', { method: 'PUT', raw: '{"slots":', headers: { 'content-type': 'application/json' } });
    expect(status).toBe(400);
    expect(json.error.code).toBe('request.invalid_json');
  });

  it('a JSON body that is not an object: 400 request.not_an_object', async () => {
    const { status, json } = await api(gw.url, '/api/settings', { method: 'PUT', body: [1, 2] });
    expect(status).toBe(400);
    expect(json.error.code).toBe('request.not_an_object');
  });

  it('unsupported content type: 415 saying which Content-Type to send', async () => {
    const { status, json } = await api(gw.url, '/api/settings', { method: 'PUT', raw: 'x', headers: { 'content-type': 'text/csv' } });
    expect(status).toBe(415);
    expect(json.error.code).toBe('request.unsupported_media_type');
    expect(json.error.message).toContain('Content-Type: application/json');
    expect(json.error.details).toEqual({ content_type: 'text/csv', accepts: ['application/json'] });
    // No Content-Type at all (curl -d without -H sends form encoding; a raw client may send none).
    const bare = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-x' }, body: new Uint8Array(Buffer.from('{"model":"chat"}')) });
    const bareJson = (await bare.json()) as { error: { code: string; message: string; details: { content_type: unknown } } };
    expect(bare.status).toBe(415);
    expect(bareJson.error.message).toMatch(/send the header Content-Type: application\/json \(got no Content-Type\)/);
    expect(bareJson.error.details.content_type).toBeNull();
    // Without a bearer too: a tool's POST carries no browser header, so it gets the same 415.
    const tool = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', body: new Uint8Array(Buffer.from('{"model":"chat"}')) });
    expect([tool.status, ((await tool.json()) as { error: { code: string } }).error.code]).toEqual([415, 'request.unsupported_media_type']);
    // One a browser marks as sent by a page elsewhere is refused first, saying what a tool should send.
    const formLike = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'sec-fetch-site': 'same-site' }, body: new Uint8Array(Buffer.from('{"model":"chat"}')) });
    const formJson = (await formLike.json()) as { error: { code: string; message: string } };
    expect([formLike.status, formJson.error.code]).toEqual([403, 'request.form_post']);
    expect(formJson.error.message).toContain('Content-Type: application/json');
  });

  it('valid JSON with a __proto__ key is a 400 that names the key, not "invalid JSON"', async () => {
    const raw = '{"model":"chat","messages":[{"role":"user","content":"hi","__proto__":{"polluted":true}}]}';
    const { status, json } = await api(gw.url, '/v1/chat/completions', { method: 'POST', raw, headers: { 'content-type': 'application/json' } });
    expect(status).toBe(400);
    expect(json.error.code).toBe('request.invalid');
    expect(json.error.details.problems).toEqual([{ path: 'messages[0].__proto__', message: 'this key is refused: it can change object prototypes' }]);
    const constructor = await api(gw.url, '/api/settings', { method: 'PUT', raw: '{"constructor":{"prototype":{"x":1}}}', headers: { 'content-type': 'application/json' } });
    expect(constructor.json.error.details.problems[0].path).toBe('constructor.prototype');
    // The word in a value is not a key: such a body is parsed as usual.
    const ok = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'nope', messages: [{ role: 'user', content: 'a constructor and a __proto__' }] } });
    expect(ok.json.error.code).toBe('model.not_found');
  });

  it('oversized body: 413 request.too_large at the configured [api].max_body_mb', async () => {
    const big = JSON.stringify({ padding: 'x'.repeat(1024 * 1024 + 10) });
    const { status, json } = await api(gw.url, '/api/settings', { method: 'PUT', raw: big, headers: { 'content-type': 'application/json' } });
    expect(status).toBe(413);
    expect(json.error.code).toBe('request.too_large');
    expect(svcToml().toString()).toBe(ORIGINAL_SVC_TOML);
  });
});

describe('settings', () => {
  it('PUT with an invalid value is a 400 naming the path, and svc.toml is byte-for-byte unchanged', async () => {
    const before = svcToml();
    const { status, json } = await api(gw.url, '/api/settings', { method: 'PUT', body: { slots: { idle_timeout_s: -1 } } });
    expect(status).toBe(400);
    expect(json.error.code).toBe('config.invalid');
    expect(json.error.message).toContain('slots.idle_timeout_s');
    expect(json.error.details.problems).toEqual([{ file: 'svc.toml', path: 'slots.idle_timeout_s', message: 'expected >= 0; got -1' }]);
    expect(svcToml().equals(before)).toBe(true);
  });

  it('PUT reports every problem, rejects unknown keys and checks extraction_slot against enabled llm slots', async () => {
    const before = svcToml();
    const { json } = await api(gw.url, '/api/settings', {
      method: 'PUT',
      body: { slots: { max_slots: 'two', idel_timeout_s: 3 }, memory: { graph: { extraction_slot: 'nobody' } } },
    });
    const paths = json.error.details.problems.map((p: { path: string }) => p.path).sort();
    expect(paths).toEqual(['memory.graph.extraction_slot', 'slots.idel_timeout_s', 'slots.max_slots']);
    expect(svcToml().equals(before)).toBe(true);
  });

  it('PUT deep-merges, validates, writes, applies and records the change', async () => {
    const { status, json } = await api(gw.url, '/api/settings', {
      method: 'PUT',
      body: { dispatcher: { prefetch_parallel_cap: 2 }, memory: { graph: { extraction_slot: 'chat' } } },
    });
    expect(status).toBe(200);
    expect(json.changed.sort()).toEqual(['dispatcher.prefetch_parallel_cap', 'memory.graph.extraction_slot']);
    expect(json.apply.keys['dispatcher.prefetch_parallel_cap']).toBe('live');
    const text = svcToml().toString();
    expect(text).toMatch(/prefetch_parallel_cap = 2/);
    expect(text).toMatch(/idle_timeout_s = 120/); // untouched keys stay
    const settings = (await api(gw.url, '/api/settings')).json.settings;
    expect(settings.dispatcher.prefetch_parallel_cap).toBe(2);
    expect(settings.slots.idle_timeout_s).toBe(120);
    const rows = (await api(gw.url, '/api/activity?action=settings.update')).json.items;
    expect(rows[0].details.changes['dispatcher.prefetch_parallel_cap']).toEqual({ before: 4, after: 2 });
  });

  it('GET /api/settings/schema describes every key with type, default, bounds and description', async () => {
    const { json } = await api(gw.url, '/api/settings/schema');
    const byKey = new Map<string, Record<string, unknown>>(json.keys.map((k: { key: string }) => [k.key, k]));
    for (const entry of byKey.values()) {
      expect(entry.description, String(entry.key)).not.toBe('');
      expect(entry.type, String(entry.key)).toBeTruthy();
      expect(entry, String(entry.key)).toHaveProperty('default');
      expect(String(entry.apply_class), String(entry.key)).toMatch(/^(live|manual|restart:[a-z-]+)$/);
    }
    expect(byKey.get('slots.idle_timeout_s')).toMatchObject({ type: 'integer', default: 300, minimum: 0 });
    expect(byKey.get('memory.graph.llm_timeout_s')).toMatchObject({ minimum: 30, maximum: 3600, default: 300 });
    expect(byKey.get('activity.max_rows')).toMatchObject({ nullable: true, minimum: 100, default: 50000 });
    expect(byKey.get('updates.channel')).toMatchObject({ enum: ['stable', 'nightly'] });
    expect(json.json_schema.type).toBe('object');
    // Keys nothing reads yet say so, for a dashboard to grey them out (issue 22); read keys carry no flag.
    expect([...byKey.values()].filter((k) => k.unread === true).map((k) => k.key)).toEqual([
      'telemetry.enabled', 'memory.embedding.rerank_gateway_url',
    ]);
    expect(byKey.get('updates.channel')).not.toHaveProperty('unread');
    // [memory] is read now (the engines, graph extraction); only the rerank URL is not (the rerank runs in process).
    expect(json.json_schema.properties.memory).not.toHaveProperty('unread');
  });

  it('GET /api/settings/apply-plan classifies keys', async () => {
    const all = (await api(gw.url, '/api/settings/apply-plan')).json;
    expect(all.keys['meta.schema_version']).toBe('manual');
    expect(all.keys['api.max_body_mb']).toBe('restart:svc-api');
    const some = (await api(gw.url, '/api/settings/apply-plan?keys=slots')).json;
    expect(Object.keys(some.keys).every((k) => k.startsWith('slots.'))).toBe(true);
  });

  it('POST /api/settings/reload: an invalid file gives 400 with every path and the running config stays', async () => {
    home.write('slots/bad.toml', '[slot]\nname = "bad"\nport = 8081\ndevice = "gpu"\n');
    home.write('upstreams.toml', '[upstreams.remote]\nbase_url = "not a url"\n');
    const { status, json } = await api(gw.url, '/api/settings/reload', { method: 'POST' });
    expect(status).toBe(400);
    const found = json.error.details.problems.map((p: { file: string; path: string }) => `${p.file}: ${p.path}`).sort();
    // Port conflicts are reported on the later file in name order.
    expect(found).toEqual(['slots/bad.toml: slot.device', 'slots/chat.toml: slot.port', 'upstreams.toml: upstreams.remote.base_url']);
    expect((await api(gw.url, '/api/status')).json.slots.total).toBe(1);

    home.write('slots/bad.toml', '[slot]\nname = "bad"\nport = 8082\ndevice = "cpu"\n');
    home.write('upstreams.toml', '');
    const ok = await api(gw.url, '/api/settings/reload', { method: 'POST' });
    expect(ok.status).toBe(200);
    expect((await api(gw.url, '/api/status')).json.slots.slots.map((s: { name: string }) => s.name)).toEqual(['bad', 'chat']);
  });
});

describe('activity log', () => {
  it('filters by action and target and pages with a cursor', async () => {
    for (const value of [3, 4, 5]) await api(gw.url, '/api/settings', { method: 'PUT', body: { dispatcher: { prefetch_parallel_cap: value } } });
    const first = (await api(gw.url, '/api/activity?action=settings.*&target=svc.toml&limit=2')).json;
    expect(first.items).toHaveLength(2);
    expect(first.next_cursor).toBeTruthy();
    const second = (await api(gw.url, `/api/activity?action=settings.*&target=svc.toml&limit=2&cursor=${first.next_cursor}`)).json;
    const ids = [...first.items, ...second.items].map((r: { id: number }) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it('rejects a sort key outside the whitelist', async () => {
    const { status, json } = await api(gw.url, '/api/activity?sort=id;drop%20table%20activity');
    expect(status).toBe(400);
    expect(json.error.code).toBe('request.invalid');
    expect(json.error.details.problems[0].path).toBe('sort');
  });
});

describe('shutdown', () => {
  it('SIGTERM closes gracefully with exit 0 and records system.stop', async () => {
    const other = tempHome();
    const g = await startGateway(other.home);
    expect(await g.stop()).toBe(0);
    const db = new Database(join(other.stateRoot, 'activity.db'), { readonly: true });
    const actions = db.prepare('select action from activity order by id').all().map((r) => (r as { action: string }).action);
    db.close();
    expect(actions).toEqual(['system.start', 'system.stop']);
  });
});

describe('profiles', () => {
  it('GET /api/profiles lists the 12 immutable seeds with what each serves', async () => {
    const { json } = await api(gw.url, '/api/profiles');
    const seeds = json.profiles.filter((p: { seed: boolean }) => p.seed);
    expect(seeds).toHaveLength(12);
    expect(seeds.find((p: { name: string }) => p.name === 'embed')).toMatchObject({ serves: ['embedding'], device_class: 'gpu', backend: 'rocm' });
  });

  it('GET /api/profiles/<name> returns one profile, or 404 profiles.not_found', async () => {
    expect((await api(gw.url, '/api/profiles/cpu-llm')).json).toMatchObject({ name: 'cpu-llm', seed: true, device_class: 'cpu', mtp: false });
    const missing = await api(gw.url, '/api/profiles/nope');
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('profiles.not_found');
  });
});
