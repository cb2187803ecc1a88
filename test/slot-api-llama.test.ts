// The slot API and `svc slot …` on a real llama-server (slot files without an engine: slot-api.test.ts).
// It runs the tiny model on the llama-server that scripts/build-llama-server.sh builds:
// load, list, show, logs, swap, unload, delete.
//    Skipped with a message when that binary is missing; under CI=true it fails instead.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runSvc, startGateway, SVC_BIN, svcEnv, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';
import { llamaServerPath, llamaServerSkipReason, processAlive, tinyModel } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

const LLAMA_SERVER = llamaServerPath();
if (!LLAMA_SERVER) process.stderr.write(`test/slot-api-llama.test.ts: the real llama-server tests are ${llamaServerSkipReason()}\n`);

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
