// Registry operations against a real temp home: registry.toml and slot files on disk.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'smol-toml';
import { loadConfig, withRegistry, type ResolvedConfig } from '../config/load.js';
import { resolvePaths, type SvcPaths } from '../config/paths.js';
import { TINY_MODEL_SHAPE, writeTinyModel } from '../engines/gguf/tiny-model.js';
import { SvcError } from '../protocol/errors.js';
import { assignModel, listModels, registerModel, removeModel, resolveModelRef, scanModels, scanSummaryLine } from './service.js';

/** `bytes` bytes that start with the GGUF magic (register refuses a .gguf without it); the header past it is not readable. */
const magicFirst = (bytes: number) => Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(Math.max(0, bytes - 4), 7)]);

const homes: string[] = [];

afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

interface Home {
  home: string;
  paths: SvcPaths;
  models: string;
  config: () => Promise<ResolvedConfig>;
  file: (rel: string, bytes?: number) => string;
  registry: () => Record<string, unknown>;
}

/** A temp SVC_HOME whose models root is <home>/models, with optional slot files. */
function makeHome(slots: Record<string, string> = {}, svcToml = ''): Home {
  const home = mkdtempSync(join(tmpdir(), 'svc-models-'));
  homes.push(home);
  const paths = resolvePaths({ env: { SVC_HOME: home }, isRoot: false, homeDir: home, exists: () => false });
  const models = join(home, 'models');
  mkdirSync(paths.slotsDir, { recursive: true });
  writeFileSync(paths.svcToml, `[models]\nroots = [${JSON.stringify(models)}]\n${svcToml}`);
  for (const [name, text] of Object.entries(slots)) writeFileSync(join(paths.slotsDir, `${name}.toml`), text);
  return {
    home,
    paths,
    models,
    config: async () => {
      const outcome = await loadConfig(paths, {});
      if (!outcome.ok) throw new Error(outcome.problems.map((p) => `${p.file}: ${p.path}: ${p.message}`).join('\n'));
      return outcome.config;
    },
    file: (rel, bytes = 32) => {
      const path = join(models, rel);
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, magicFirst(bytes));
      return path;
    },
    registry: () => parse(readFileSync(paths.registryToml, 'utf8')) as Record<string, unknown>,
  };
}

/** The error a promise rejects with, as {code, status, details}. */
async function failure(promise: Promise<unknown>): Promise<{ code: string; status: number; message: string; details: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SvcError) return { code: error.code, status: error.status, message: error.message, details: error.details };
    throw error;
  }
  throw new Error('expected a failure');
}

const SLOT = (name: string, port: number, model = '') => `[slot]\nname = "${name}"\nport = ${port}\ndevice = "cpu"\n\n[model]\ndefault = "${model}"\n`;

describe('registerModel', () => {
  it('writes a compact entry with size, context length and the sidecar, and refreshes on the same path', async () => {
    const h = makeHome();
    const path = join(h.models, 'vl', 'tiny.gguf');
    mkdirSync(join(h.models, 'vl'), { recursive: true });
    const size = await writeTinyModel(path);
    const sidecar = h.file('vl/mmproj-tiny-f16.gguf');
    const result = await registerModel(await h.config(), 'tiny', { path, name: 'Tiny', license: 'mit' });
    expect(result).toMatchObject({ id: 'tiny', created: true, warnings: [] });
    expect(h.registry()).toEqual({
      models: { tiny: { name: 'Tiny', path, size_bytes: size, license: 'mit', source: 'registered', mmproj: sidecar, metadata: { context_length: TINY_MODEL_SHAPE.contextLength } } },
    });
    expect(result.registry.models.tiny).toMatchObject({ capabilities: ['chat'], tags: [], files: [] });

    // Keys svc does not set survive a refresh; name and license stay unless given.
    writeFileSync(h.paths.registryToml, readFileSync(h.paths.registryToml, 'utf8') + '\n[models.tiny.defaults]\nprofile = "cpu-llm"\n');
    const again = await registerModel(await h.config(), 'tiny', { path: `${h.models}/vl/../vl/tiny.gguf` });
    expect(again.created).toBe(false);
    expect(again.registry.models.tiny).toMatchObject({ name: 'Tiny', license: 'mit', defaults: { profile: 'cpu-llm' } });
  });

  it.each([
    ['an invalid id', '-bad', () => '/x.gguf', 'model.invalid_id', 400],
    ['a relative path', 'm', () => 'models/x.gguf', 'model.path_relative', 400],
    ['a missing file', 'm', (h: Home) => join(h.models, 'none.gguf'), 'model.path_missing', 400],
    ['a directory', 'm', (h: Home) => h.models, 'model.unsupported_format', 400],
    ['another extension', 'm', (h: Home) => h.file('notes.bin'), 'model.unsupported_format', 400],
    ['an mmproj sidecar', 'm', (h: Home) => h.file('mmproj-x.gguf'), 'model.unsupported_format', 400],
    ['part 2 of a split model', 'm', (h: Home) => h.file('s-00002-of-00002.gguf'), 'model.unsupported_format', 400],
    ['a split model with a missing part', 'm', (h: Home) => h.file('t-00001-of-00002.gguf'), 'model.path_missing', 400],
  ])('refuses %s', async (_what, id, pathOf, code, status) => {
    const h = makeHome();
    h.file('placeholder.gguf');
    const error = await failure(registerModel(await h.config(), id, { path: pathOf(h) }));
    expect(error).toMatchObject({ code, status });
    expect(existsSync(h.paths.registryToml)).toBe(false);
  });

  it('names the path a relative path error is about', async () => {
    const h = makeHome();
    const error = await failure(registerModel(await h.config(), 'm', { path: 'rel/x.gguf' }));
    expect(error.details).toEqual({ path: 'rel/x.gguf' });
    expect(error.message).toContain('rel/x.gguf');
  });

  it('refuses an id already registered for another file', async () => {
    const h = makeHome();
    await registerModel(await h.config(), 'm', { path: h.file('a.gguf') });
    const error = await failure(registerModel(await h.config(), 'm', { path: h.file('b.gguf') }));
    expect(error).toMatchObject({ code: 'model.already_exists', status: 409, details: { id: 'm', path: join(h.models, 'a.gguf') } });
  });
});

describe('removeModel', () => {
  it('refuses while a slot uses the model, naming the slots, and removes with force', async () => {
    const h = makeHome({ chat: SLOT('chat', 8081, 'm'), other: SLOT('other', 8082, 'x') });
    await registerModel(await h.config(), 'm', { path: h.file('m.gguf') });
    const error = await failure(removeModel(await h.config(), 'm'));
    expect(error).toMatchObject({ code: 'model.in_use', status: 409, details: { model: 'm', slots: ['chat'] } });
    expect(error.message).toContain('chat');
    const removed = await removeModel(await h.config(), 'm', { force: true });
    expect(removed).toMatchObject({ id: 'm', used_by: ['chat'] });
    expect(removed.registry.models).toEqual({});
    expect(existsSync(join(h.models, 'm.gguf'))).toBe(true);
  });

  it('excludes a removed file under a root from the scan, and a later register takes it back', async () => {
    const h = makeHome();
    const inside = h.file('in.gguf');
    const outsideDir = join(h.home, 'elsewhere');
    mkdirSync(outsideDir);
    const outside = join(outsideDir, 'out.gguf');
    writeFileSync(outside, magicFirst(8));
    await registerModel(await h.config(), 'in', { path: inside });
    await registerModel(await h.config(), 'out', { path: outside });
    await removeModel(await h.config(), 'in');
    await removeModel(await h.config(), 'out');
    expect(h.registry().scan_exclude).toEqual([inside]);
    expect((await scanModels(await h.config())).added).toEqual([]);
    await registerModel(await h.config(), 'in', { path: inside });
    expect(h.registry().scan_exclude).toBeUndefined();
  });

  it('is model.not_found for an unknown ref', async () => {
    const h = makeHome();
    expect(await failure(removeModel(await h.config(), 'nope'))).toMatchObject({ code: 'model.not_found', status: 404, details: { ref: 'nope' } });
  });
});

describe('assignModel', () => {
  it("sets the slot's default, keeps every other key (unknown ones too) and clears [model].path", async () => {
    const text = `${SLOT('chat', 8081, 'old')}context_size = 8192\npath = "/somewhere/else.gguf"\nfuture_key = "kept"\n\n[server]\nextra_args = "--jinja"\n`;
    const h = makeHome({ chat: text });
    await registerModel(await h.config(), 'm', { path: h.file('m.gguf') });
    const result = await assignModel(await h.config(), 'm', 'chat');
    expect(result).toMatchObject({ id: 'm', slot: 'chat', before: 'old', cleared_path: '/somewhere/else.gguf' });
    const doc = parse(readFileSync(join(h.paths.slotsDir, 'chat.toml'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(doc.model).toEqual({ default: 'm', context_size: 8192, future_key: 'kept' });
    expect(doc.server).toEqual({ extra_args: '--jinja' });
    expect(doc.slot).toMatchObject({ name: 'chat', port: 8081, device: 'cpu' });
  });

  it('is slot.not_found for a missing slot and model.not_found for a missing model', async () => {
    const h = makeHome({ chat: SLOT('chat', 8081) });
    await registerModel(await h.config(), 'm', { path: h.file('m.gguf') });
    expect(await failure(assignModel(await h.config(), 'm', 'nope'))).toMatchObject({ code: 'slot.not_found', status: 404, details: { slot: 'nope' } });
    expect(await failure(assignModel(await h.config(), 'm', '../etc'))).toMatchObject({ code: 'slot.not_found' });
    expect(await failure(assignModel(await h.config(), 'zzz', 'chat'))).toMatchObject({ code: 'model.not_found' });
    expect(existsSync(join(h.paths.slotsDir, 'nope.toml'))).toBe(false);
  });
});

describe('scanModels', () => {
  it('adds new files with source scan and unique ids, never changing registered entries', async () => {
    const h = makeHome();
    const mine = h.file('a/dup.gguf');
    await registerModel(await h.config(), 'dup', { path: mine, name: 'Mine' });
    const other = h.file('b/dup.gguf');
    h.file('b/mmproj-dup.gguf');
    const fresh = h.file('c/Fresh Model.safetensors');
    const result = await scanModels(await h.config());
    expect(result).toMatchObject({ found: 3, already_registered: 1, written: true, missing_roots: [] });
    expect(result.added).toEqual([
      { id: 'dup-2', path: other, mmproj: join(h.models, 'b/mmproj-dup.gguf') },
      { id: 'fresh-model', path: fresh, mmproj: null },
    ]);
    expect(result.registry.models.dup).toMatchObject({ name: 'Mine', source: 'registered', path: mine });
    expect(result.registry.models['dup-2']).toMatchObject({ source: 'scan', size_bytes: 32 });
    expect(scanSummaryLine(result)).toBe('models: scan found 3 model file(s) under 1 root(s), 2 added (dup-2, fresh-model), 1 already registered, 1 mmproj sidecar(s)');

    const again = await scanModels(withRegistry(await h.config(), result.registry));
    expect(again).toMatchObject({ added: [], already_registered: 3, written: false });
  });

  it('does not add a symlink to a registered file again (the links `svc migrate model-layout` makes)', async () => {
    const h = makeHome();
    const elsewhere = mkdtempSync(join(tmpdir(), 'svc-mount-'));
    homes.push(elsewhere);
    const file = join(elsewhere, 'Qwen3-8B.gguf');
    writeFileSync(file, magicFirst(32));
    await registerModel(await h.config(), 'qwen', { path: file });
    mkdirSync(join(h.models, 'llamacpp/chat'), { recursive: true });
    symlinkSync(file, join(h.models, 'llamacpp/chat/Qwen3-8B.gguf'));
    const result = await scanModels(await h.config());
    expect(result).toMatchObject({ found: 1, already_registered: 1, added: [], written: false });
  });

  it('scans the store too, and writes nothing when nothing is new', async () => {
    const h = makeHome({}, `store = ${JSON.stringify(join(tmpdir(), 'svc-no-store-here'))}\n`);
    const result = await scanModels(await h.config());
    expect(result.roots).toEqual([h.models, join(tmpdir(), 'svc-no-store-here')]);
    expect(result.missing_roots).toEqual(result.roots);
    expect(result.written).toBe(false);
    expect(existsSync(h.paths.registryToml)).toBe(false);
  });
});

describe('listing and refs', () => {
  it('shows used_by and present, and resolves a ref by id or by a unique name', async () => {
    const h = makeHome({ chat: SLOT('chat', 8081, 'm') });
    const path = h.file('m.gguf');
    await registerModel(await h.config(), 'm', { path, name: 'My Model' });
    await registerModel(await h.config(), 'gone', { path: h.file('gone.gguf'), name: 'Same' });
    await registerModel(await h.config(), 'gone2', { path: h.file('gone2.gguf'), name: 'same' });
    rmSync(join(h.models, 'gone.gguf'));
    const config = await h.config();
    const models = await listModels(config);
    expect(models.map((m) => [m.id, m.used_by, m.present])).toEqual([['gone', [], false], ['gone2', [], true], ['m', ['chat'], true]]);
    expect(models[2]).toMatchObject({ name: 'My Model', path, size_bytes: 32, license: 'unknown', source: 'registered', tags: [], mmproj: null, context_length: null });
    expect(resolveModelRef(config.registry, 'm')).toBe('m');
    expect(resolveModelRef(config.registry, 'my model')).toBe('m');
    expect(() => resolveModelRef(config.registry, 'Same')).toThrow(/several models \(gone, gone2\)/);
  });
});
