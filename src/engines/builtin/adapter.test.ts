import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlotEntry } from '../../config/load.js';
import { SEED_PROFILES } from '../../config/profiles.js';
import { SlotFileSchema } from '../../config/schema/slot.js';
import { SvcTomlSchema } from '../../config/schema/svc-toml.js';
import { writeTinyModel } from '../gguf/tiny-model.js';
import { engineFor } from '../index.js';
import type { LaunchContext, ResolvedModel } from '../types.js';
import { BUILTIN_MAIN, builtinAdapter } from './adapter.js';
import { parseFlags } from './flags.js';

let root: string;
let modelPath: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-builtin-adapter-'));
  modelPath = join(root, 'svc-tiny.gguf');
  await writeTinyModel(modelPath);
});
afterAll(() => rm(root, { recursive: true, force: true }));

type SlotInput = { slot?: Record<string, unknown>; model?: Record<string, unknown>; server?: Record<string, unknown> };

function context(c: SlotInput = {}, over: { model?: Partial<ResolvedModel>; profile?: string } = {}): LaunchContext {
  const config = SlotFileSchema.parse({ slot: { name: 'chat', port: 8091, device: 'cpu', provider: 'builtin', ...c.slot }, model: c.model ?? {}, server: c.server ?? {} });
  const slot: SlotEntry = { name: 'chat', file: 'slots/chat.toml', config };
  const name = over.profile ?? 'cpu-llm';
  return {
    slot,
    model: { id: 'svc-tiny', path: modelPath, mmproj: null, tags: [], contextLength: null, ...over.model },
    profile: { name, profile: SEED_PROFILES[name]!, source: 'slot' },
    svc: SvcTomlSchema.parse({ engines: { runtime: 'podman' } }),
    stateDir: join(root, 'state'),
    baseEnv: { PATH: '/usr/bin', HOME: root, SVC_AUTH_ENABLED: '1', NODE_OPTIONS: '--inspect' },
    modelStore: root,
  };
}

/** The engine's own flags, as main.js would parse them. */
const engineFlags = (args: string[]) => parseFlags(args.slice(1));

describe('builtinAdapter', () => {
  it('is registered for provider "builtin" and serves llm, embedding and reranking slots', () => {
    expect(engineFor('builtin')).toBe(builtinAdapter);
    expect(builtinAdapter.serves).toEqual(['llm', 'embedding', 'reranking']);
  });

  it('runs dist/engines/builtin/main.js with this node, as a process on 127.0.0.1, with a clean environment', async () => {
    const spec = await builtinAdapter.launch(context());
    expect(spec.command).toBe(process.execPath);
    expect(spec.args[0]).toBe(BUILTIN_MAIN);
    expect(BUILTIN_MAIN).toMatch(/engines\/builtin\/main\.js$/);
    expect(spec.mode).toBe('process'); // even with [engines].runtime = podman
    expect(spec.baseUrl).toBe('http://127.0.0.1:8091');
    expect(spec.env).toEqual({ PATH: '/usr/bin', HOME: root });
  });

  it("builds llama-server's argv without the profile's tuning flags, and the engine accepts every flag of it", async () => {
    const spec = await builtinAdapter.launch(context({ slot: { workers: 3, chat_template: 'chatml', mtp: true } }, { profile: 'cpu-llm' }));
    const flags = engineFlags(spec.args);
    expect(flags).toMatchObject({
      model: modelPath, host: '127.0.0.1', port: 8091, alias: 'svc-tiny', ctxSize: 32768, gpuLayers: 0, parallel: 3, chatTemplate: 'chatml', device: 'none',
    });
    for (const llamaServerOnly of ['-b', '--load-mode', '--jinja', '--spec-type']) expect(spec.args).not.toContain(llamaServerOnly);
  });

  it('embedding and reranking slots get their mode flags; the embedding slot pools by mean unless told otherwise', async () => {
    const embed = engineFlags((await builtinAdapter.launch(context({ slot: { type: 'embedding' } }, { profile: 'embed' }))).args);
    expect(embed).toMatchObject({ embedding: true, pooling: 'mean', reranking: false });
    const rerank = engineFlags((await builtinAdapter.launch(context({ slot: { type: 'reranking' } }, { profile: 'rerank' }))).args);
    expect(rerank).toMatchObject({ reranking: true, embedding: false });
    const cls = engineFlags((await builtinAdapter.launch(context({ slot: { type: 'embedding' }, server: { extra_args: '--pooling cls' } }))).args);
    expect(cls.pooling).toBe('cls');
  });

  it('a GPU slot offloads every layer and lets node-llama-cpp pick the installed GPU build', async () => {
    const spec = await builtinAdapter.launch(context({ slot: { device: 'gpu-cuda', gpu_index: 1 } }, { profile: 'cuda' }));
    expect(engineFlags(spec.args)).toMatchObject({ gpuLayers: 999, device: 'auto' }); // 999 is every layer (engine.ts gpuLayersOption)
    expect(spec.env.CUDA_VISIBLE_DEVICES).toBe('1');
    const some = await builtinAdapter.launch(context({ slot: { device: 'gpu-vulkan' }, model: { n_gpu_layers: 10 } }, { profile: 'vulkan' }));
    expect(engineFlags(some.args).gpuLayers).toBe(10);
  });

  it('extra_args apply last: threads, another device; never another port (svc owns it)', async () => {
    const spec = await builtinAdapter.launch(context({ server: { extra_args: '-t 1 --device auto' } }));
    expect(engineFlags(spec.args)).toMatchObject({ threads: 1, device: 'auto' });
    await expect(builtinAdapter.launch(context({ server: { extra_args: '--port 8150' } }))).rejects.toMatchObject({ code: 'slot.config_error' });
    // A llama-server flag passes the builder; the engine refuses it by name when it starts.
    const bad = await builtinAdapter.launch(context({ server: { extra_args: '-fa on' } }));
    expect(() => engineFlags(bad.args)).toThrow(/unknown flag "-fa"/);
  });

  it('refuses slot types it does not serve and a missing model file', async () => {
    await expect(builtinAdapter.launch(context({ slot: { type: 'tts' } }))).rejects.toMatchObject({ code: 'slot.config_error' });
    await expect(builtinAdapter.launch(context({}, { model: { path: join(root, 'gone.gguf') } }))).rejects.toMatchObject({ code: 'slot.model_missing' });
  });
});

describe('builtinAdapter.health', () => {
  let server: Server;
  let status = 503;
  let base: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? '{"status":"ok"}' : '{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it("reads the engine's 503 as loading, 200 as ready, no answer as down", async () => {
    expect(await builtinAdapter.health(base, AbortSignal.timeout(2000))).toBe('loading');
    status = 200;
    expect(await builtinAdapter.health(base, AbortSignal.timeout(2000))).toBe('ready');
    expect(await builtinAdapter.health('http://127.0.0.1:1', AbortSignal.timeout(2000))).toBe('down');
  });
});
