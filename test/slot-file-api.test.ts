// `file` of POST and PUT /api/slots (docs/api.md, "Slots"): any key of the slot file, merged
// into it (a null removes a key), validated as a file on disk is with every problem at its
// file path, the name never changed, unknown keys of the file kept. From a LAN client (a
// network namespace of this test's own) every host-only key arriving through `file` is
// refused exactly as through its own field, and nothing is written.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Gateway, startGateway, type TempHome } from './helpers/gateway.js';
import { type Lan, lanSkipReason, openLan } from './helpers/lan.js';
import { homeWithTinySlots } from './helpers/llama.js';

const skip = lanSkipReason();
let home: TempHome;
let gateway: Gateway;
let lan: Lan;
const fromLan = (method: string, path: string, body?: unknown) => lan.request(`${lan.url(gateway.port)}${path}`, { method, ...(body !== undefined && { body }) });
const fromHost = (method: string, path: string, body?: unknown) => api(gateway.url, path, { method, ...(body !== undefined && { body }) });
const text = (name: string) => readFileSync(join(home.configRoot, 'slots', `${name}.toml`), 'utf8');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const toml = (name: string): any => parse(text(name));
const paths = (answer: { json: { error: { details: { problems: Array<{ path: string }> } } } }) => answer.json.error.details.problems.map((p) => p.path).sort();

beforeAll(async () => {
  if (skip) return;
  // A key and a table this build does not know (a newer svc's): they must survive every write.
  home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin', extra: 'future_key = "kept"\n' }]);
  home.write('slots/chat.toml', `${text('chat')}\n[future]\nsetting = 1\n`);
  [gateway, lan] = await Promise.all([startGateway(home.home, { args: ['--host', '0.0.0.0'] }), openLan()]);
}, 60_000);
afterAll(async () => {
  lan?.close();
  await gateway?.stop();
});

describe.skipIf(skip)(`slot file keys through file ${skip ?? ''}`, () => {
  it('sets and clears keys the fields do not reach, keeping unknown keys, and says what changed', async () => {
    const set = await fromHost('PUT', '/api/slots/chat', { file: { slot: { idle_timeout_s: 900, workers: 2 }, model: { n_gpu_layers: 8 }, image: { default_steps: 4 } } });
    expect(set.status, set.text).toBe(200);
    expect(set.json.changes.map((c: { key: string }) => c.key).sort()).toEqual(['image.default_steps', 'model.n_gpu_layers', 'slot.idle_timeout_s', 'slot.workers']);
    expect(set.json.changes.find((c: { key: string }) => c.key === 'slot.idle_timeout_s')).toEqual({ key: 'slot.idle_timeout_s', before: null, after: 900 });
    const written = toml('chat');
    expect([written.slot.idle_timeout_s, written.slot.workers, written.model.n_gpu_layers, written.image.default_steps]).toEqual([900, 2, 8, 4]);
    expect([written.slot.future_key, written.future.setting]).toEqual(['kept', 1]);
    expect((await fromHost('GET', '/api/slots/chat')).json.idle_timeout_s).toBe(900);

    // null removes the key: the file no longer says it, the default applies again.
    const cleared = await fromHost('PUT', '/api/slots/chat', { file: { slot: { idle_timeout_s: null, workers: null } }, ctx_size: 1024 });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.json.changes.map((c: { key: string }) => c.key).sort()).toEqual(['model.context_size', 'slot.idle_timeout_s', 'slot.workers']);
    const after = toml('chat');
    expect('idle_timeout_s' in after.slot).toBe(false);
    expect('workers' in after.slot).toBe(false);
    expect([after.model.context_size, after.model.n_gpu_layers, after.slot.future_key, after.future.setting]).toEqual([1024, 8, 'kept', 1]);
    // A field the old API could not clear: the context size, now derived from the model.
    expect((await fromHost('PUT', '/api/slots/chat', { file: { model: { context_size: null } } })).json.changes).toEqual([{ key: 'model.context_size', before: 1024, after: null }]);
    // The same again is no change, and nothing is written.
    const before = text('chat');
    expect((await fromHost('PUT', '/api/slots/chat', { file: { model: { context_size: null } } })).json.changes).toEqual([]);
    expect(text('chat')).toBe(before);
  });

  it('validates the merged file as on disk, every problem at its file path, and writes nothing', async () => {
    const before = text('chat');
    const bad = await fromHost('PUT', '/api/slots/chat', { file: { slot: { idle_timeout_s: -5, load_timeout_s: 'soon', default_voice: 'af' }, model: { context_size: 12 }, image: { default_size: 'big' } } });
    expect([bad.status, bad.json.error.code]).toEqual([400, 'config.invalid']);
    expect(paths(bad)).toEqual(['image.default_size', 'model.context_size', 'slot.default_voice', 'slot.idle_timeout_s', 'slot.load_timeout_s']);
    expect(text('chat')).toBe(before);

    const renamed = await fromHost('PUT', '/api/slots/chat', { file: { slot: { name: 'other' } } });
    expect([renamed.status, renamed.json.error.code, paths(renamed)]).toEqual([400, 'request.invalid', ['file.slot.name']]);
    expect((await fromHost('PUT', '/api/slots/chat', { file: { slot: { name: null } } })).status).toBe(400);
    const unknown = await fromHost('PUT', '/api/slots/chat', { file: { slot: { future_key: 'x', workerz: 2 }, mystery: {} } });
    expect([unknown.status, unknown.json.error.code]).toEqual([400, 'request.invalid']);
    expect(paths(unknown)).toEqual(['file.mystery']);
    expect(paths(await fromHost('PUT', '/api/slots/chat', { file: { slot: { workerz: 2 } } }))).toEqual(['file.slot.workerz']);
    expect(text('chat')).toBe(before);
    // The name as it is passes (not a change).
    expect((await fromHost('PUT', '/api/slots/chat', { file: { slot: { name: 'chat', workers: 3 } } })).status).toBe(200);
  });

  it('creates a slot with file keys, a port in file taking the pool\'s place', async () => {
    const port = toml('chat').slot.port + 1;
    const created = await fromLan('POST', '/api/slots', { name: 'made', model: 'tiny', provider: 'builtin', device: 'cpu', file: { slot: { port, load_timeout_s: 120, enabled: false }, npu: { asr: true } } });
    expect(created.status, created.text).toBe(201);
    expect([created.json.port, created.json.enabled]).toEqual([port, false]);
    const written = toml('made');
    expect([written.slot.port, written.slot.load_timeout_s, written.slot.enabled, written.npu.asr, written.model.context_size]).toEqual([port, 120, false, true, 4096]);
    const bad = await fromLan('POST', '/api/slots', { name: 'bad', model: 'tiny', provider: 'builtin', device: 'cpu', file: { slot: { workers: 0, name: 'else' } } });
    expect([bad.status, paths(bad)]).toEqual([400, ['file.slot.name']]);
    const invalid = await fromLan('POST', '/api/slots', { name: 'bad', model: 'tiny', provider: 'builtin', device: 'cpu', file: { slot: { workers: 0 } } });
    expect([invalid.status, paths(invalid)]).toEqual([400, ['slot.workers']]);
  });

  it('refuses each host-only key through file from the LAN, as through its own field, and lets the host set it', async () => {
    const hostile: Array<[string, unknown]> = [
      ['flags --log-file', { server: { extra_args: '--log-file /tmp/x' } }],
      ['server.env.LD_PRELOAD', { server: { env: { LD_PRELOAD: '/tmp/x.so' } } }],
      ['model.path', { model: { path: '/etc/passwd' } }],
      ['slot.chat_template', { slot: { chat_template: '/tmp/t.jinja' } }],
      ['flags -m', { slot: { provider: 'llama-server' }, server: { extra_args: '-m /etc/passwd' } }],
    ];
    expect((await fromHost('POST', '/api/profiles', { name: 'logs', image: '', device_class: 'img', flags: '--output-directory /tmp/o' })).status).toBe(201);
    hostile.push(['flags --output-directory', { slot: { profile: 'logs' } }]);
    for (const [key, file] of hostile) {
      const before = text('chat');
      const answer = await fromLan('PUT', '/api/slots/chat', { file });
      expect([answer.status, answer.json.error.code], key).toEqual([403, 'config.host_only']);
      expect(JSON.stringify(answer.json.error.details.keys), key).toContain(key);
      expect(text('chat'), key).toBe(before);
      const created = await fromLan('POST', '/api/slots', { name: 'lanmade', model: 'tiny', provider: 'builtin', device: 'cpu', file });
      expect([created.status, created.json.error.code], key).toEqual([403, 'config.host_only']);
    }
    // Where an engine listens: refused from the host at its file path; from the LAN as through the field.
    const listen = await fromHost('PUT', '/api/slots/chat', { file: { server: { extra_args: '--port 9000' } } });
    expect([listen.status, paths(listen)]).toEqual([400, ['server.extra_args']]);
    const [throughFile, throughField] = [await fromLan('PUT', '/api/slots/chat', { file: { server: { extra_args: '--port 9000' } } }), await fromLan('PUT', '/api/slots/chat', { extra_args: '--port 9000' })];
    expect([throughFile.status, throughFile.json.error.code]).toEqual([throughField.status, throughField.json.error.code]);
    expect(throughFile.status).toBeGreaterThanOrEqual(400);
    // A LAN client may set what is not host-only, and clear a host file the host set.
    expect((await fromLan('PUT', '/api/slots/chat', { file: { slot: { chat_template: 'chatml', workers: 2 }, server: { env: { CUDA_VISIBLE_DEVICES: '0' } } } })).status).toBe(200);
    expect((await fromHost('PUT', '/api/slots/chat', { file: { slot: { chat_template: '/tmp/t.jinja' } } })).status).toBe(200);
    expect(toml('chat').slot.chat_template).toBe('/tmp/t.jinja');
    // Keeping the host's value while changing something else is no addition.
    expect((await fromLan('PUT', '/api/slots/chat', { file: { slot: { workers: 4 } } })).status).toBe(200);
    expect((await fromLan('PUT', '/api/slots/chat', { file: { slot: { chat_template: null } } })).status).toBe(200);
    expect('chat_template' in toml('chat').slot).toBe(false);
  });
});
