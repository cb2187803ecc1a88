// The slot API and `svc slot …` end to end: the built gateway in a temp SVC_HOME, slot files
// with no engine needed: create, edit, delete, the port pool, validation. On a real
// llama-server: slot-api-llama.test.ts.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runSvc, startGateway, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';
import { tinyModel } from './helpers/llama.js';


/** Slot file as parsed TOML. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const slotFile = (h: TempHome, name: string): any => parse(readFileSync(join(h.configRoot, 'slots', `${name}.toml`), 'utf8'));
const slotExists = (h: TempHome, name: string) => existsSync(join(h.configRoot, 'slots', `${name}.toml`));

/** Register a model file through the models API. */
async function register(g: Gateway, id: string, path: string): Promise<void> {
  const { status, text } = await api(g.url, '/api/models', { method: 'POST', body: { id, path } });
  if (status !== 201) throw new Error(`registering ${id}: ${status} ${text}`);
}

async function activity(g: Gateway, query: string) {
  const { json } = await api(g.url, `/api/activity?${query}&limit=500`);
  return json.items as Array<{ id: number; kind: string; action: string; target: string; actor: string; outcome: string; message: string; details: Record<string, unknown> }>;
}

/** A port nothing listens on (fetch refuses some well-known ports outright, e.g. 9). */
function unusedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('svc slot without a server', () => {
  const h = tempHome();
  let url = '';
  const svc = (...args: string[]) => runSvc(args, { home: h.home, env: { SVC_API_URL: url } });
  beforeAll(async () => {
    url = `http://127.0.0.1:${await unusedPort()}`;
  });
  afterAll(() => rmSync(h.home, { recursive: true, force: true }));

  it('exits 3 when the server cannot be reached', () => {
    const result = svc('slot', 'list');
    expect(result.status).toBe(3);
    expect(result.stderr).toContain(`cannot reach the svc API at ${url} (connection refused)`);
    // load, unload, restart, swap and delete wait without a time limit (node:http, not fetch).
    const load = svc('slot', 'load', 'chat');
    expect(load.status).toBe(3);
    expect(load.stderr).toContain(`cannot reach the svc API at ${url} (connection refused)`);
  });

  it('refuses --provider comfyui with exit 2, pointing at --type image', () => {
    const result = svc('slot', 'create', 'pic', '--provider', 'comfyui', '-m', 'tiny');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('"comfyui" is not accepted: image slots are created with --type image');
  });

  it('checks the other options before calling the server (exit 2)', () => {
    expect(svc('slot', 'create', 'chat').stderr).toMatch(/required option '-m, --model <id>' not specified/);
    const small = svc('slot', 'create', 'chat', '-m', 'tiny', '--ctx-size', '64');
    expect(small.status).toBe(2);
    expect(small.stderr).toContain('expected a context size of 128-10000000; got "64"');
    expect(svc('slot', 'create', 'chat', '-m', 'tiny', '--hardware', 'metal').status).toBe(2);
    expect(svc('slot', 'create', 'chat', '-m', 'tiny', '--port', '9000').status).toBe(2);
    expect(svc('slot', 'swap', 'chat').status).toBe(2);
    expect(svc('slot', 'logs', 'chat', '-n', '0').status).toBe(2);
    const edit = svc('slot', 'edit', 'chat');
    expect(edit.status).toBe(2);
    expect(edit.stderr).toContain('nothing to change');
  });
});

describe('slot files through the API (no engine needed)', () => {
  let h: TempHome;
  let g: Gateway;
  let tiny: string;
  const svc = (...args: string[]) => runSvc(args, { home: h.home, env: { SVC_API_URL: g.url } });

  beforeAll(async () => {
    h = tempHome({
      // A two-port pool, so running out of ports is easy to test.
      'svc.toml': '[slots]\nport_range_start = 8176\nport_range_end = 8177\n',
      'slots/off.toml': '[slot]\nname = "off"\nport = 8195\ndevice = "cpu"\nenabled = false\nmy_note = "kept"\n\n[model]\ndefault = "tiny"\n',
    });
    tiny = await tinyModel(join(h.home, 'models'));
    const other = await tinyModel(join(h.home, 'models'), 'other.gguf', 7);
    // No engine here: a binary that is not there makes `launch` an error to show.
    g = await startGateway(h.home, { env: { SVC_LLAMA_SERVER: join(h.home, 'no-llama-server') } });
    await register(g, 'tiny', tiny);
    await register(g, 'other', other);
  }, 60_000);

  afterAll(async () => {
    await g?.stop();
    rmSync(h.home, { recursive: true, force: true });
  });

  it('creates a slot on the first pool port, context 4096, device from the fallback (no probe), provider llama-server', async () => {
    const { status, json } = await api(g.url, '/api/slots', { method: 'POST', body: { name: 'a', model: 'tiny' } });
    expect(status).toBe(201);
    expect(json).toMatchObject({ name: 'a', state: 'stopped', type: 'llm', device: 'gpu-vulkan', provider: 'llama-server', port: 8176, model: 'tiny', pid: null });
    // SVC_LLAMA_SERVER names a binary that is not there: llama-server as asked, and a warning saying so.
    expect(json.provider_reason).toBe('SVC_LLAMA_SERVER names it (it is not usable: see the warning)');
    // 4096 is within the tiny model's native 32768: no context warning.
    expect(json.warnings).toEqual([
      expect.stringMatching(/^it cannot start as configured \(slot\.binary_missing\): .*SVC_LLAMA_SERVER/),
    ]);
    expect(slotFile(h, 'a')).toEqual({ slot: { name: 'a', port: 8176, type: 'llm', device: 'gpu-vulkan', provider: 'llama-server' }, model: { default: 'tiny', context_size: 4096 } });
    const row = (await activity(g, 'action=slot.create&target=a'))[0];
    expect(row).toMatchObject({ outcome: 'ok', details: { port: 8176, port_source: 'pool', device_source: 'fallback', ctx_size: 4096 } });
  });

  it('takes the device from the hardware probe when there is one', async () => {
    const probe = await api(g.url, '/api/hardware/probe', { method: 'POST' });
    expect(probe.status).toBe(200);
    const device = ({ vulkan: 'gpu-vulkan', rocm: 'gpu-rocm', cpu: 'cpu' } as Record<string, string>)[probe.json.recommended];
    const { status, json } = await api(g.url, '/api/slots', { method: 'POST', body: { name: 'b', model: 'tiny', ctx_size: 128 } });
    expect(status).toBe(201);
    expect(json).toMatchObject({ port: 8177, device });
    expect(slotFile(h, 'b').model.context_size).toBe(128);
  });

  it('answers 409 slot.no_free_port when every pool port is claimed, and writes nothing', async () => {
    const { status, json } = await api(g.url, '/api/slots', { method: 'POST', body: { name: 'c', model: 'tiny' } });
    expect(status).toBe(409);
    expect(json.error).toMatchObject({ code: 'slot.no_free_port', details: { range: [8176, 8177], claimed: [8176, 8177] } });
    expect(slotExists(h, 'c')).toBe(false);
  });

  it('refuses a port another slot file uses, a taken name, an unknown model and bad fields', async () => {
    const clash = await api(g.url, '/api/slots', { method: 'POST', body: { name: 'd', model: 'tiny', port: 8176 } });
    expect(clash.status).toBe(400);
    expect(clash.json.error.code).toBe('config.invalid');
    expect(clash.json.error.details.problems).toEqual([{ file: 'slots/d.toml', path: 'slot.port', message: 'port 8176 is already used by slots/a.toml' }]);
    expect(slotExists(h, 'd')).toBe(false);

    const taken = await api(g.url, '/api/slots', { method: 'POST', body: { name: 'a', model: 'tiny', port: 8190 } });
    expect(taken.status).toBe(409);
    expect(taken.json.error).toMatchObject({ code: 'slot.already_exists', details: { slot: 'a', file: 'slots/a.toml' } });

    const unknown = await api(g.url, '/api/slots', { method: 'POST', body: { name: 'e', model: 'nope', port: 8190 } });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('model.not_found');
    expect(slotExists(h, 'e')).toBe(false);

    const bad = await api(g.url, '/api/slots', { method: 'POST', body: { name: 'Bad Name', ctx_size: 64, hardware: 'metal', extra: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('request.invalid');
    expect(bad.json.error.details.problems.map((p: { path: string }) => p.path).sort()).toEqual(['ctx_size', 'extra', 'hardware', 'model', 'name']);
  });

  it('rejects provider comfyui with a clear 400; type image implies comfyui', async () => {
    const comfy = await api(g.url, '/api/slots', { method: 'POST', body: { name: 'pic', model: 'tiny', provider: 'comfyui', port: 8190 } });
    expect(comfy.status).toBe(400);
    expect(comfy.json.error.code).toBe('request.invalid');
    expect(comfy.json.error.message).toContain('"comfyui" is not accepted: image slots are created with type "image"');
    expect(slotExists(h, 'pic')).toBe(false);

    const image = await api(g.url, '/api/slots', { method: 'POST', body: { name: 'pic', model: 'tiny', type: 'image', port: 8190, hardware: 'cpu' } });
    expect(image.status).toBe(201);
    expect(slotFile(h, 'pic').slot).toMatchObject({ type: 'image', provider: 'comfyui', port: 8190 });
    expect((await api(g.url, '/api/slots/pic', { method: 'DELETE' })).status).toBe(200);
  });

  it('puts the file back when the whole configuration would not load with the change', async () => {
    const { status, json } = await api(g.url, '/api/slots', { method: 'POST', body: { name: 'f', model: 'tiny', port: 8191, profile: 'no-such-profile' } });
    expect(status).toBe(400);
    expect(json.error.code).toBe('config.invalid');
    expect(json.error.message).toContain('slots/f.toml not changed: the configuration does not load with this change');
    expect(json.error.details.problems[0]).toMatchObject({ file: 'slots/f.toml', path: 'slot.profile' });
    expect(slotExists(h, 'f')).toBe(false);
    expect((await api(g.url, '/api/slots/f')).status).toBe(404);
  });

  it('GET /api/slots/<name> returns the validated config and the launch error when no command can be built', async () => {
    const { status, json } = await api(g.url, '/api/slots/a');
    expect(status).toBe(200);
    expect(json).toMatchObject({ name: 'a', file: 'slots/a.toml', launch: null, launch_error: { code: 'slot.binary_missing' } });
    expect(json.config.slot).toMatchObject({ name: 'a', port: 8176, enabled: true, load_timeout_s: 600 });
    expect(json.config.model).toMatchObject({ default: 'tiny', context_size: 4096 });
    expect((await api(g.url, '/api/slots/nope')).json.error).toMatchObject({ code: 'slot.not_found', details: { slot: 'nope' } });

    const shown = svc('slot', 'show', 'a');
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('# slots/a.toml, as loaded');
    expect(shown.stdout).toContain('context_size = 4096');
    expect(shown.stdout).toContain('# the command cannot be built: slot.binary_missing:');
  });

  it('edits a slot: changes are listed, unknown keys stay, a model replaces [model].path', async () => {
    const { status, json } = await api(g.url, '/api/slots/off', { method: 'PUT', body: { ctx_size: 8192, hardware: 'rocm', model: 'other' } });
    expect(status).toBe(200);
    expect(json.restart_required).toBe(false);
    expect(json.changes).toEqual([
      { key: 'slot.device', before: 'cpu', after: 'gpu-rocm' },
      { key: 'model.default', before: 'tiny', after: 'other' },
      { key: 'model.context_size', before: null, after: 8192 },
    ]);
    const file = slotFile(h, 'off');
    expect(file.slot).toMatchObject({ my_note: 'kept', enabled: false, device: 'gpu-rocm' });
    expect(file.model).toEqual({ default: 'other', context_size: 8192 });

    const cli = svc('slot', 'edit', 'off', '--port', '8196', '--provider', 'kokoro');
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('slot.port: 8195 -> 8196');
    expect(slotFile(h, 'off').slot).toMatchObject({ port: 8196, provider: 'kokoro' });
    expect(svc('slot', 'edit', 'off', '--port', '8196').stdout).toContain('nothing changed');

    expect((await api(g.url, '/api/slots/off', { method: 'PUT', body: {} })).json.error.code).toBe('request.invalid');
    expect((await api(g.url, '/api/slots/off', { method: 'PUT', body: { provider: 'comfyui' } })).status).toBe(400);
    expect((await api(g.url, '/api/slots/off', { method: 'PUT', body: { port: 8176 } })).json.error.code).toBe('config.invalid');
    const rows = await activity(g, 'action=slot.edit_config&target=off');
    expect(rows.map((r) => r.outcome)).toEqual(['error', 'error', 'error', 'ok', 'ok']);
  });

  it('swap on a disabled slot is refused before anything is written', async () => {
    const before = readFileSync(join(h.configRoot, 'slots/off.toml'), 'utf8');
    const { status, json } = await api(g.url, '/api/slots/off/swap', { method: 'POST', body: { model: 'tiny' } });
    expect(status).toBe(409);
    expect(json.error.code).toBe('slot.disabled');
    expect(readFileSync(join(h.configRoot, 'slots/off.toml'), 'utf8')).toBe(before);
  });

  it('enables and disables a slot with PUT {enabled}: the file and the state follow', async () => {
    const on = await api(g.url, '/api/slots/off', { method: 'PUT', body: { enabled: true } });
    expect(on.status, on.text).toBe(200);
    expect(on.json.changes).toEqual([{ key: 'slot.enabled', before: false, after: true }]);
    expect(on.json.slot).toMatchObject({ enabled: true, state: 'stopped' });
    expect(slotFile(h, 'off').slot).toMatchObject({ enabled: true, my_note: 'kept' });
    const off = await api(g.url, '/api/slots/off', { method: 'PUT', body: { enabled: false } });
    expect(off.json.slot).toMatchObject({ enabled: false, state: 'disabled' });
    expect(slotFile(h, 'off').slot.enabled).toBe(false);
    expect((await api(g.url, '/api/slots/off', { method: 'PUT', body: { enabled: 'no' } })).json.error.details.problems[0].path).toBe('enabled');
  });

  it('PUT /api/install/slots/<name>/model persists the default without loading', async () => {
    const { status, json } = await api(g.url, '/api/install/slots/a/model', { method: 'PUT', body: { model: 'other' } });
    expect(status).toBe(200);
    expect(json).toMatchObject({ model: 'other', before: 'tiny', slot: { name: 'a', state: 'stopped', model: 'other' } });
    expect(slotFile(h, 'a').model.default).toBe('other');
    expect((await api(g.url, '/api/install/slots/a/model', { method: 'PUT', body: { model: 'nope' } })).status).toBe(404);
    expect((await api(g.url, '/api/install/slots/nope/model', { method: 'PUT', body: { model: 'tiny' } })).status).toBe(404);
    expect((await api(g.url, '/api/install/slots/a/model', { method: 'PUT', body: {} })).json.error.code).toBe('request.invalid');
  });

  it('serves an empty log for a slot that never ran, and checks lines', async () => {
    expect((await api(g.url, '/api/slots/a/logs')).json).toEqual({ slot: 'a', lines: [] });
    expect((await api(g.url, '/api/slots/a/logs?lines=0')).json.error.code).toBe('request.invalid');
    expect((await api(g.url, '/api/slots/a/logs?follow=maybe')).json.error.code).toBe('request.invalid');
    // More lines than the ring keeps is all it keeps, not a refusal (svc slot logs -n 1000).
    expect(await api(g.url, '/api/slots/a/logs?lines=1000')).toMatchObject({ status: 200, json: { slot: 'a', lines: [] } });
    const cli = runSvc(['slot', 'logs', 'a', '-n', '1000'], { home: h.home, env: { SVC_API_URL: g.url } });
    expect(cli.status, cli.stderr).toBe(0);
  });

  it('deletes a stopped slot without force; the file goes, the list follows', async () => {
    const { status, json } = await api(g.url, '/api/slots/b', { method: 'DELETE' });
    expect(status).toBe(200);
    expect(json).toMatchObject({ deleted: 'b', file: 'slots/b.toml', was: 'stopped' });
    expect(slotExists(h, 'b')).toBe(false);
    expect((await api(g.url, '/api/slots')).json.slots.map((s: { name: string }) => s.name)).toEqual(['a', 'off']);
    expect((await api(g.url, '/api/slots/b', { method: 'DELETE' })).status).toBe(404);
    // Its port is free again for the pool.
    expect((await api(g.url, '/api/slots', { method: 'POST', body: { name: 'c', model: 'tiny' } })).json.port).toBe(8177);
  });
});
