// The model registry end to end: the built gateway in a temp SVC_HOME, driven through
// `svc model …` and /api/models, with real files (the tiny GGUF model) on disk.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TINY_MODEL_SHAPE, writeTinyModel } from '../src/engines/gguf/tiny-model.js';
import { api, runSvc, startGateway, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';

// A disabled slot (nothing tries to start it) with keys of every kind, unknown ones included.
const CHAT_SLOT = `[slot]
name = "chat"
port = 8081
device = "cpu"
enabled = false
future_slot_key = "kept"

[model]
context_size = 4096

[server]
extra_args = "--jinja"
`;

// Each CLI call spawns node; on two busy cores that adds up.
vi.setConfig({ testTimeout: 60_000 });

let h: TempHome;
let g: Gateway;
let modelsRoot: string;
let tinyPath: string;
let tinySize: number;

const svc = (...args: string[]) => runSvc(args, { home: h.home, env: { SVC_API_URL: g.url } });

beforeAll(async () => {
  h = tempHome({ 'slots/chat.toml': CHAT_SLOT });
  // The default root is <state root>/models; the scan at start should find what is there.
  modelsRoot = join(h.stateRoot, 'models');
  mkdirSync(join(modelsRoot, 'vision'), { recursive: true });
  await writeTinyModel(join(modelsRoot, 'Scanned-Tiny.gguf'));
  await writeTinyModel(join(modelsRoot, 'vision', 'tiny-vl.gguf'));
  writeFileSync(join(modelsRoot, 'vision', 'mmproj-tiny-vl-f16.gguf'), 'projector');
  writeFileSync(join(modelsRoot, 'notes.txt'), 'not a model');
  mkdirSync(join(h.home, 'elsewhere'));
  tinyPath = join(h.home, 'elsewhere', 'tiny.gguf');
  tinySize = await writeTinyModel(tinyPath);
  g = await startGateway(h.home);
}, 60_000);

afterAll(async () => {
  await g?.stop();
  rmSync(h.home, { recursive: true, force: true });
});

describe('auto-scan at start', () => {
  it('registers the .gguf files under the models root, attaching the mmproj sidecar instead of registering it', async () => {
    // The scan runs once the gateway listens (nothing slow comes before it): wait for its line.
    await expect.poll(() => g.output(), { timeout: 10_000 }).toContain('svc: models: scan found 2 model file(s) under 1 root(s), 2 added (scanned-tiny, tiny-vl), 0 already registered, 1 mmproj sidecar(s)');
    const { status, json } = await api(g.url, '/api/models');
    expect(status).toBe(200);
    expect(json.roots).toEqual([modelsRoot]);
    expect(json.store).toBe(modelsRoot);
    const ids = json.models.map((m: { id: string }) => m.id);
    expect(ids).toEqual(['scanned-tiny', 'tiny-vl']);
    expect(ids.some((id: string) => id.includes('mmproj'))).toBe(false);
    const vl = json.models.find((m: { id: string }) => m.id === 'tiny-vl');
    expect(vl).toMatchObject({
      source: 'scan',
      path: join(modelsRoot, 'vision', 'tiny-vl.gguf'),
      mmproj: join(modelsRoot, 'vision', 'mmproj-tiny-vl-f16.gguf'),
      context_length: TINY_MODEL_SHAPE.contextLength,
      present: true,
      used_by: [],
    });
  });
});

describe('svc model register / list / show', () => {
  it('registers a file, and list shows it with its size and context length', async () => {
    const registered = svc('model', 'register', 'tiny', '--path', tinyPath, '--name', 'Tiny Chat', '--license', 'mit');
    expect(registered.stderr).toBe('');
    expect(registered.status).toBe(0);
    expect(registered.stdout).toContain(`registered model tiny: ${tinyPath}`);
    expect(registered.stdout).toContain('context 32768');

    const list = svc('model', 'list');
    expect(list.status).toBe(0);
    const header = list.stdout.split('\n')[0]!;
    expect(header).toMatch(/^ID\s+NAME\s+SIZE\s+CTX\s+SOURCE\s+USED BY\s+PATH$/);
    const row = list.stdout.split('\n').find((line) => line.startsWith('tiny '))!;
    expect(row).toMatch(/^tiny\s+Tiny Chat\s+\d+\.\d+ [KM]iB\s+32768\s+registered\s+-\s+/);
    expect(row.endsWith(tinyPath)).toBe(true);

    const json = JSON.parse(svc('model', 'list', '--json').stdout);
    expect(json.models.find((m: { id: string }) => m.id === 'tiny')).toMatchObject({
      id: 'tiny', name: 'Tiny Chat', path: tinyPath, size_bytes: tinySize, license: 'mit', source: 'registered', context_length: 32768, mmproj: null, present: true,
    });
  });

  it('shows one model by id or by name, as text or JSON', async () => {
    const text = svc('model', 'show', 'tiny');
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^id\s+tiny$/m);
    expect(text.stdout).toMatch(new RegExp(`^size\\s+\\S+ [KM]iB \\(${tinySize} bytes\\)$`, 'm'));
    expect(text.stdout).toMatch(/^context\s+32768$/m);
    const byName = JSON.parse(svc('model', 'show', 'tiny chat', '--json').stdout);
    expect(byName).toMatchObject({ id: 'tiny', size_bytes: tinySize });
    const missing = svc('model', 'show', 'nope');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^svc: model\.not_found: no model "nope" in the registry/);
  });

  it('refuses a duplicate id for another file with 409, and refreshes on the same file', async () => {
    const other = join(modelsRoot, 'Scanned-Tiny.gguf');
    const cli = svc('model', 'register', 'tiny', '-p', other);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain(`svc: model.already_exists: model "tiny" is already registered for ${tinyPath}`);
    const http = await api(g.url, '/api/models', { method: 'POST', body: { id: 'tiny', path: other } });
    expect(http.status).toBe(409);
    expect(http.json.error).toMatchObject({ code: 'model.already_exists', details: { id: 'tiny', path: tinyPath } });
    const same = await api(g.url, '/api/models', { method: 'POST', body: { id: 'tiny', path: tinyPath } });
    expect(same.status).toBe(200);
    expect(same.json).toMatchObject({ created: false, model: { name: 'Tiny Chat', license: 'mit' } });
  });

  it('refuses a relative path with 400 naming the path', async () => {
    const http = await api(g.url, '/api/models', { method: 'POST', body: { id: 'rel', path: 'models/tiny.gguf' } });
    expect(http.status).toBe(400);
    expect(http.json.error).toMatchObject({ code: 'model.path_relative', details: { path: 'models/tiny.gguf' } });
    expect(http.json.error.message).toContain('models/tiny.gguf');
    const cli = svc('model', 'register', 'rel', '--path', 'models/tiny.gguf');
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain('svc: model.path_relative: path must be absolute; got "models/tiny.gguf"');
  });

  it('checks the body and requires --path', async () => {
    const http = await api(g.url, '/api/models', { method: 'POST', body: { id: 7, extra: true } });
    expect(http.status).toBe(400);
    expect(http.json.error.code).toBe('request.invalid');
    expect(http.json.error.details.problems.map((p: { path: string }) => p.path)).toEqual(['id', 'path', 'extra']);
    const cli = svc('model', 'register', 'x');
    expect(cli.status).toBe(2);
    expect(cli.stderr).toContain("required option '-p, --path <path>' not specified");
  });
});

describe('svc model assign / rm', () => {
  it("assigns a model to a slot: [model].default is set and the slot file's other keys survive", async () => {
    const result = svc('model', 'assign', 'tiny', '--slot', 'chat');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('slot chat: default model is now tiny');
    const doc = parse(readFileSync(join(h.configRoot, 'slots/chat.toml'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(doc.model).toEqual({ default: 'tiny', context_size: 4096 });
    expect(doc.slot).toMatchObject({ name: 'chat', port: 8081, enabled: false, future_slot_key: 'kept' });
    expect(doc.server).toEqual({ extra_args: '--jinja' });
    const { json } = await api(g.url, '/api/models/tiny');
    expect(json.used_by).toEqual(['chat']);

    const noSlot = svc('model', 'assign', 'tiny', '-s', 'nope');
    expect(noSlot.status).toBe(1);
    expect(noSlot.stderr).toContain('svc: slot.not_found: no slot "nope"');
  });

  it('refuses to remove a model a slot uses, naming the slot, and removes it with --force', async () => {
    const refused = svc('model', 'rm', 'tiny');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('svc: model.in_use: model "tiny" is the default model of slot(s) chat');
    const http = await api(g.url, '/api/models/tiny', { method: 'DELETE' });
    expect(http.status).toBe(409);
    expect(http.json.error).toMatchObject({ code: 'model.in_use', details: { model: 'tiny', slots: ['chat'] } });

    const forced = svc('model', 'rm', 'tiny', '--force');
    expect(forced.status).toBe(0);
    expect(forced.stdout).toContain('removed model tiny from the registry');
    expect(forced.stdout).toContain('slot(s) chat still name it');
    expect((await api(g.url, '/api/models/tiny')).status).toBe(404);
    expect(parse(readFileSync(join(h.stateRoot, 'registry/registry.toml'), 'utf8')).models).not.toHaveProperty('tiny');
  });
});

describe('POST /api/models/scan', () => {
  it('adds a file placed under the root after start', async () => {
    await writeTinyModel(join(modelsRoot, 'late.gguf'));
    const { status, json } = await api(g.url, '/api/models/scan', { method: 'POST' });
    expect(status).toBe(200);
    expect(json).toMatchObject({ roots: [modelsRoot], found: 3, already_registered: 2, added: [{ id: 'late', path: join(modelsRoot, 'late.gguf'), mmproj: null }] });
    expect((await api(g.url, '/api/models/late')).json).toMatchObject({ source: 'scan', context_length: 32768 });
  });
});

describe('activity', () => {
  it('records every registry mutation, failures included', async () => {
    const { json } = await api(g.url, '/api/activity?action=model.*&order=asc&limit=100');
    const rows = json.items.map((r: { action: string; target: string; outcome: string; actor: string }) => `${r.action} ${r.target} ${r.outcome} ${r.actor}`);
    expect(rows).toEqual(expect.arrayContaining([
      'model.scan registry.toml ok system',
      'model.register tiny ok cli',
      'model.register tiny error cli',
      'model.register tiny ok api',
      'model.assign tiny ok cli',
      'model.delete tiny error cli',
      'model.delete tiny ok cli',
      'model.scan registry.toml ok api',
    ]));
    const assign = json.items.find((r: { action: string; outcome: string }) => r.action === 'model.assign' && r.outcome === 'ok');
    expect(assign.details).toMatchObject({ slot: 'chat', before: '', after: 'tiny' });
  });
});
