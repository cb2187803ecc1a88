// The slot API and `svc slot …` end to end: the built gateway in a temp SVC_HOME.
//  - "slot files" needs no engine: create, edit, delete, the port pool, validation.
//  - "a real llama-server" runs the tiny model on the llama-server that
//    scripts/build-llama-server.sh builds: load, list, show, logs, swap, unload, delete.
//    Skipped with a message when that binary is missing; under CI=true it fails instead.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runSvc, startGateway, SVC_BIN, svcEnv, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';
import { llamaServerPath, llamaServerSkipReason, processAlive, tinyModel } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

const LLAMA_SERVER = llamaServerPath();
if (!LLAMA_SERVER) process.stderr.write(`test/slot-api.test.ts: the real llama-server tests are ${llamaServerSkipReason()}\n`);

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
    expect(svc('slot', 'create', 'chat', '-m', 'tiny', '--hardware', 'cuda').status).toBe(2);
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
    expect(json.warnings).toEqual([
      expect.stringMatching(/^it cannot start as configured \(slot\.binary_missing\): .*SVC_LLAMA_SERVER/),
      expect.stringMatching(/^context size 4096 is above the native context of tiny \(2048 tokens\)/),
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

    const bad = await api(g.url, '/api/slots', { method: 'POST', body: { name: 'Bad Name', ctx_size: 64, hardware: 'cuda', extra: 1 } });
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

describe.skipIf(!LLAMA_SERVER)(LLAMA_SERVER ? 'slots on a real llama-server' : `slots on a real llama-server: ${llamaServerSkipReason()}`, () => {
  let h: TempHome;
  let g: Gateway;
  const pids = new Set<number>();
  const svc = (...args: string[]) => runSvc(args, { home: h.home, env: { SVC_API_URL: g.url } });
  const view = async (name: string) => {
    const { json } = await api(g.url, '/api/slots');
    return json.slots.find((s: { name: string }) => s.name === name);
  };

  beforeAll(async () => {
    h = tempHome({
      'svc.toml': '[slots]\nport_range_start = 8160\nport_range_end = 8175\n',
      // A slot whose model is not in the registry.
      'slots/ghost.toml': '[slot]\nname = "ghost"\nport = 8192\ndevice = "cpu"\n\n[model]\ndefault = "not-registered"\n',
    });
    const models = join(h.home, 'models');
    const tiny = await tinyModel(models);
    const tinyB = await tinyModel(models, 'tiny-b.gguf', 11);
    g = await startGateway(h.home, { env: { SVC_LLAMA_SERVER: LLAMA_SERVER! } });
    await register(g, 'tiny', tiny);
    await register(g, 'tiny-b', tinyB);
  }, 60_000);

  afterAll(async () => {
    if (g) {
      expect(await g.stop()).toBe(0);
      // A graceful gateway stop stops every engine it started.
      for (const pid of pids) expect(processAlive(pid), `llama-server pid ${pid} outlived the gateway`).toBe(false);
    }
    rmSync(h.home, { recursive: true, force: true });
  }, 60_000);

  it('svc slot create picks a pool port, context 4096 and the cpu device, and writes the file', () => {
    const result = svc('slot', 'create', 'chat', '--hardware', 'cpu', '-m', 'tiny');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^created slot chat \(slots\/chat\.toml\): type llm, device cpu, provider llama-server, port 81\d\d, model tiny, context 4096$/m);
    const file = slotFile(h, 'chat');
    expect(file.slot).toMatchObject({ name: 'chat', type: 'llm', device: 'cpu', provider: 'llama-server' });
    expect(file.slot.port).toBeGreaterThanOrEqual(8160);
    expect(file.slot.port).toBeLessThanOrEqual(8175);
    expect(file.model).toEqual({ default: 'tiny', context_size: 4096 });
    const again = svc('slot', 'create', 'chat', '-m', 'tiny');
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('svc: slot.already_exists: slot chat already exists');
  });

  it('svc slot load brings it to ready; list --json shows a live pid and the port', async () => {
    const loaded = svc('slot', 'load', 'chat');
    expect(loaded.status, loaded.stderr).toBe(0);
    expect(loaded.stdout).toMatch(/^slot chat is ready: model tiny on port 81\d\d \(pid \d+\)$/m);
    const listed = svc('slot', 'list', '--json');
    expect(listed.status, listed.stderr).toBe(0);
    const chat = JSON.parse(listed.stdout).slots.find((s: { name: string }) => s.name === 'chat');
    expect(chat).toMatchObject({ state: 'ready', model: 'tiny', port: slotFile(h, 'chat').slot.port, in_flight: 0, last_error: null });
    // The backend as llama-server's log says it (a CPU build: "no usable GPU found"); device cpu, so no warning.
    expect(chat).toMatchObject({ backend: 'cpu', gpu_layers: { offloaded: 0, total: null }, warnings: [] });
    expect(chat.pid).toBeGreaterThan(0);
    expect(processAlive(chat.pid)).toBe(true);
    pids.add(chat.pid);
    expect(chat.base_url).toBe(`http://127.0.0.1:${chat.port}`);
    expect((await fetch(`${chat.base_url}/health`)).status).toBe(200);

    const table = svc('slot', 'list').stdout.split('\n');
    expect(table[0]).toMatch(/^NAME\s+TYPE\s+DEVICE\s+PROVIDER\s+PORT\s+STATE\s+BACKEND\s+PID\s+MODEL\s+IN-FLIGHT$/);
    expect(table.find((l) => l.startsWith('chat'))).toMatch(new RegExp(`^chat\\s+llm\\s+cpu\\s+llama-server\\s+${chat.port}\\s+ready\\s+cpu\\s+${chat.pid}\\s+tiny\\s+0$`));
    const status = svc('slot', 'status', 'chat');
    expect(status.stdout).toMatch(/^state\s+ready$/m);
    expect(status.stdout).toMatch(new RegExp(`^pid\\s+${chat.pid}$`, 'm'));
    expect(status.stdout).toMatch(/^backend\s+cpu$/m);
    expect(status.stdout).toMatch(/^gpu layers\s+0$/m);
  }, 120_000);

  it('svc slot show prints the config and the command line with --port', () => {
    const port = slotFile(h, 'chat').slot.port;
    const shown = svc('slot', 'show', 'chat');
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('[slot]\nname = "chat"');
    expect(shown.stdout).toContain(`# command of the next start (process mode), answering on http://127.0.0.1:${port}`);
    const command = shown.stdout.split('\n').find((l) => l.startsWith(LLAMA_SERVER!));
    expect(command).toContain(`--host 127.0.0.1 --port ${port}`);
    expect(command).toContain('--ctx-size 4096');
    expect(command).toContain(`--model ${join(h.home, 'models', 'tiny.gguf')}`);
    expect(command).toContain('--alias tiny');
    const json = JSON.parse(svc('slot', 'show', 'chat', '--json').stdout);
    expect(json.launch).toMatchObject({ mode: 'process', command: LLAMA_SERVER, base_url: `http://127.0.0.1:${port}` });
    expect(json.launch.args).toContain('--port');
  });

  it('logs returns what llama-server wrote, from the CLI and the API', async () => {
    const port = slotFile(h, 'chat').slot.port;
    const logs = svc('slot', 'logs', 'chat', '-n', '100');
    expect(logs.status, logs.stderr).toBe(0);
    expect(logs.stdout).toContain(`listening on http://127.0.0.1:${port}`);
    const { json } = await api(g.url, '/api/slots/chat/logs?lines=3');
    expect(json.lines).toHaveLength(3);
  });

  it('logs --follow streams the tail and then new lines as the engine writes them', async () => {
    const controller = new AbortController();
    const response = await fetch(`${g.url}/api/slots/chat/logs?follow=true&lines=2`, { signal: controller.signal });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const events = () => text.split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => JSON.parse(e.slice(6)) as string);
    const readUntil = async (enough: () => boolean) => {
      while (!enough()) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended early: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    await readUntil(() => events().length >= 2);
    // A completion makes llama-server log its task; the stream must carry those lines.
    const { base_url } = await view('chat');
    const completion = await fetch(`${base_url}/completion`, { method: 'POST', body: JSON.stringify({ prompt: 'hello', n_predict: 2 }) });
    expect(completion.status).toBe(200);
    await readUntil(() => events().length > 2);
    controller.abort();

    // The CLI prints the same stream until Ctrl-C, then exits 0.
    const child = spawn(process.execPath, [SVC_BIN, 'slot', 'logs', 'chat', '--follow', '--lines', '5'], { env: svcEnv(h.home, { SVC_API_URL: g.url }), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    await waitFor(() => out, { what: 'five log lines from svc slot logs --follow', until: (text) => text.split('\n').length > 5 });
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 120_000);

  it('swap --no-persist serves another model and leaves the slot file alone', async () => {
    const before = await view('chat');
    const swapped = svc('slot', 'swap', 'chat', '-m', 'tiny-b', '--no-persist');
    expect(swapped.status, swapped.stderr).toBe(0);
    expect(swapped.stdout).toContain('not saved: slots/chat.toml keeps its default model');
    const after = await view('chat');
    expect(after).toMatchObject({ state: 'ready', model: 'tiny-b' });
    expect(after.pid).not.toBe(before.pid);
    pids.add(after.pid);
    await waitFor(() => !processAlive(before.pid), { what: 'the old engine to exit' });
    expect(slotFile(h, 'chat').model.default).toBe('tiny');
  }, 120_000);

  it('swap (persisted) saves the default; the same model keeps its engine', async () => {
    const before = await view('chat');
    const swapped = svc('slot', 'swap', 'chat', '-m', 'tiny-b');
    expect(swapped.status, swapped.stderr).toBe(0);
    expect(swapped.stdout).toContain('saved tiny-b as the default model in slots/chat.toml');
    expect(slotFile(h, 'chat').model.default).toBe('tiny-b');
    expect(await view('chat')).toMatchObject({ state: 'ready', model: 'tiny-b', pid: before.pid });
  }, 120_000);

  it('restart gives a new engine on the same port', async () => {
    const before = await view('chat');
    const restarted = svc('slot', 'restart', 'chat');
    expect(restarted.status, restarted.stderr).toBe(0);
    const after = await view('chat');
    expect(after).toMatchObject({ state: 'ready', port: before.port, model: 'tiny-b' });
    expect(after.pid).not.toBe(before.pid);
    pids.add(after.pid);
  }, 120_000);

  it('unload stops it: state stopped, no pid, the process is gone', async () => {
    const { pid } = await view('chat');
    const unloaded = svc('slot', 'unload', 'chat');
    expect(unloaded.status, unloaded.stderr).toBe(0);
    expect(unloaded.stdout).toBe('slot chat is stopped\n');
    expect(await view('chat')).toMatchObject({ state: 'stopped', pid: null, base_url: null });
    await waitFor(() => !processAlive(pid), { what: 'the engine to exit' });
  }, 60_000);

  it('PUT /api/install/slots/<name>/model persists the default without loading', async () => {
    const chatRows = async () => (await activity(g, 'target=chat')).sort((a, b) => a.id - b.id);
    const lastBefore = (await chatRows()).at(-1)!.id;
    const { status, json } = await api(g.url, '/api/install/slots/chat/model', { method: 'PUT', body: { model: 'tiny' }, headers: { 'x-svc-actor': 'dashboard' } });
    expect(status).toBe(200);
    expect(json).toMatchObject({ model: 'tiny', before: 'tiny-b', slot: { state: 'stopped', model: 'tiny', pid: null } });
    expect(slotFile(h, 'chat').model.default).toBe('tiny');
    // An unload waits in the slot's queue behind any start already set off: had the PUT set
    // off a load, its state changes (slot.state rows) would be logged before the unload's row.
    const unloaded = await api(g.url, '/api/slots/chat/unload', { method: 'POST' });
    expect(unloaded.json).toMatchObject({ state: 'stopped', pid: null });
    const since = (await chatRows()).filter((r) => r.id > lastBefore);
    expect(since.map((r) => `${r.kind} ${r.action} ${r.outcome}`)).toEqual(['action slot.edit_defaults ok', 'action slot.unload ok']);
    expect(since[1]!.details).toMatchObject({ was: 'stopped', state: 'stopped' });
  });

  it('delete refuses while the slot is ready, then --force stops it and removes the file (logs stay)', async () => {
    expect(svc('slot', 'load', 'chat').status).toBe(0);
    const { pid } = await view('chat');
    pids.add(pid);
    const refused = svc('slot', 'delete', 'chat');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('svc: slot.busy: slot chat is ready; unload it first (svc slot unload chat) or delete with force (svc slot delete chat --force)');
    expect(slotExists(h, 'chat')).toBe(true);
    expect((await view('chat')).state).toBe('ready');

    const forced = svc('slot', 'delete', 'chat', '-f');
    expect(forced.status, forced.stderr).toBe(0);
    expect(forced.stdout).toContain('deleted slot chat: removed slots/chat.toml (stopped it: it was ready); its logs stay in');
    expect(slotExists(h, 'chat')).toBe(false);
    expect(await view('chat')).toBeUndefined();
    await waitFor(() => !processAlive(pid), { what: 'the engine to exit' });
    expect(readFileSync(join(h.stateRoot, 'slots/chat/engine.log'), 'utf8')).toContain('llama_server');
  }, 120_000);

  it('a slot whose model is not in the registry fails to load with slot.model_missing', async () => {
    const result = svc('slot', 'load', 'ghost');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('svc: slot.model_missing: slot ghost cannot start: its model "not-registered" is not in the registry');
    const { status, json } = await api(g.url, '/api/slots/ghost/load', { method: 'POST' });
    expect(status).toBe(409);
    expect(json.error.code).toBe('slot.model_missing');
    expect((await view('ghost')).state).toBe('stopped');
    const show = JSON.parse(svc('slot', 'show', 'ghost', '--json').stdout);
    expect(show).toMatchObject({ launch: null, launch_error: { code: 'slot.model_missing' } });
  });

  it('records every mutation in the activity log, failures included', async () => {
    const rows = await activity(g, 'action=slot.*&kind=action');
    const seen = new Set(rows.map((r) => `${r.action} ${r.target} ${r.outcome}`));
    for (const expected of [
      'slot.create chat ok', 'slot.create chat error', 'slot.load chat ok', 'slot.swap chat ok', 'slot.restart chat ok', 'slot.unload chat ok',
      'slot.edit_defaults chat ok', 'slot.delete chat error', 'slot.delete chat ok', 'slot.load ghost error',
    ]) expect(seen, expected).toContain(expected);
    expect(rows.filter((r) => r.action === 'slot.swap').map((r) => r.details.persist)).toEqual([true, false]);
    expect(rows.find((r) => r.action === 'slot.edit_defaults')).toMatchObject({ actor: 'dashboard', details: { before: 'tiny-b', after: 'tiny' } });
    expect(rows.find((r) => r.action === 'slot.delete' && r.outcome === 'error')!.details).toMatchObject({ code: 'slot.busy', state: 'ready' });
    expect(rows.every((r) => r.action === 'slot.edit_defaults' || r.actor === 'cli' || r.actor === 'api')).toBe(true);
  });
});
