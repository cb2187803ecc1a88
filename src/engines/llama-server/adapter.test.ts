import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlotEntry } from '../../config/load.js';
import { SEED_PROFILES } from '../../config/profiles.js';
import { SlotFileSchema } from '../../config/schema/slot.js';
import { SvcTomlSchema } from '../../config/schema/svc-toml.js';
import { flagValue } from '../argv.js';
import { writeTinyModel } from '../gguf/tiny-model.js';
import { engineFor } from '../index.js';
import type { LaunchContext, ResolvedModel } from '../types.js';
import { createLlamaServerAdapter, ggufContextLength, llamaServerAdapter, reachableUrl } from './adapter.js';

let root: string;
let bin: string;
let modelPath: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-adapter-'));
  bin = join(root, 'bin');
  await mkdir(bin);
  for (const name of ['llama-server', 'podman']) {
    await writeFile(join(bin, name), '#!/bin/sh\n');
    await chmod(join(bin, name), 0o755);
  }
  modelPath = join(root, 'store', 'svc-tiny.gguf');
  await mkdir(join(root, 'store'));
  await writeTinyModel(modelPath);
});
afterAll(() => rm(root, { recursive: true, force: true }));

type SlotInput = { slot?: Record<string, unknown>; model?: Record<string, unknown>; server?: Record<string, unknown> };

function context(c: SlotInput = {}, over: { model?: Partial<ResolvedModel>; svc?: Record<string, unknown>; profile?: string } = {}): LaunchContext {
  const config = SlotFileSchema.parse({ slot: { name: 'chat', port: 8091, device: 'cpu', ...c.slot }, model: c.model ?? {}, server: c.server ?? {} });
  const slot: SlotEntry = { name: 'chat', file: 'slots/chat.toml', config };
  const name = over.profile ?? 'cpu-llm';
  return {
    slot,
    model: { id: 'svc-tiny', path: modelPath, mmproj: null, tags: [], contextLength: null, ...over.model },
    profile: { name, profile: SEED_PROFILES[name]!, source: 'slot' },
    svc: SvcTomlSchema.parse(over.svc ?? {}),
    stateDir: join(root, 'state'),
    baseEnv: { PATH: bin, HOME: root, SVC_AUTH_ENABLED: '1' },
    modelStore: join(root, 'store'),
  };
}

describe('llamaServerAdapter.launch (process mode)', () => {
  it('builds the command, argv, env and base URL', async () => {
    const spec = await llamaServerAdapter.launch(context({ slot: { device: 'gpu-vulkan', gpu_index: 1 }, server: { env: { FOO: 'bar' } } }, { profile: 'vulkan' }));
    expect(spec.mode).toBe('process');
    expect(spec.command).toBe(join(bin, 'llama-server'));
    expect(spec.baseUrl).toBe('http://127.0.0.1:8091');
    expect(flagValue(spec.args, '--model')).toBe(modelPath);
    expect(flagValue(spec.args, '--host')).toBe('127.0.0.1');
    expect(spec.env).toEqual({ PATH: bin, HOME: root, GGML_VK_VISIBLE_DEVICES: '1', FOO: 'bar' });
  });

  it('reads the native context from the GGUF header when the registry does not know it', async () => {
    const spec = await llamaServerAdapter.launch(context());
    expect(flagValue(spec.args, '--ctx-size')).toBe('32768'); // the tiny model's llama.context_length
    const known = await llamaServerAdapter.launch(context({}, { model: { contextLength: 131072 } }));
    expect(flagValue(known.args, '--ctx-size')).toBe('32768');
    const explicit = await llamaServerAdapter.launch(context({ model: { context_size: 1024 } }));
    expect(flagValue(explicit.args, '--ctx-size')).toBe('1024');
  });

  it('never lets extra_args move the listener: svc owns --host and --port', async () => {
    for (const extra of ['--port 8150', '--host 0.0.0.0', '--reuse_port', '--po=8150']) {
      await expect(llamaServerAdapter.launch(context({ server: { extra_args: extra } })), extra).rejects.toMatchObject({ code: 'slot.config_error' });
    }
  });

  it('throws slot.model_missing for a missing file and slot.binary_missing without a binary', async () => {
    await expect(llamaServerAdapter.launch(context({}, { model: { path: join(root, 'gone.gguf') } }))).rejects.toMatchObject({ code: 'slot.model_missing' });
    const noBin = context();
    noBin.baseEnv = { PATH: join(root, 'store') };
    await expect(llamaServerAdapter.launch(noBin)).rejects.toMatchObject({ code: 'slot.binary_missing' });
  });

  it('refuses slot types it does not serve', async () => {
    await expect(llamaServerAdapter.launch(context({ slot: { type: 'tts' } }))).rejects.toMatchObject({ code: 'slot.config_error' });
  });
});

describe('llamaServerAdapter.launch (container mode)', () => {
  it('runs the profile image with podman when [engines].runtime says so', async () => {
    const adapter = createLlamaServerAdapter({ hostDevices: () => ({ kfd: true, dri: ['/dev/dri/renderD128'], gids: { render: 1, video: 2 } }) });
    const ctx = context({ slot: { device: 'gpu-rocm', gpu_index: 0 } }, { profile: 'rocm', svc: { engines: { runtime: 'podman' }, slots: { publish_host: '10.0.0.5' } } });
    const spec = await adapter.launch(ctx);
    expect(spec.mode).toBe('container');
    expect(spec.command).toBe(join(bin, 'podman'));
    expect(spec.args).toContain('--device=/dev/kfd');
    expect(spec.args).toContain('--env=HIP_VISIBLE_DEVICES=0');
    expect(spec.args).toContain('--publish=10.0.0.5:8091:8091');
    expect(spec.args).toContain(`--volume=${join(root, 'store')}:${join(root, 'store')}:ro,z`);
    const image = spec.args.indexOf(SEED_PROFILES.rocm!.image);
    expect(flagValue(spec.args.slice(image + 1), '--host')).toBe('0.0.0.0');
    expect(spec.baseUrl).toBe('http://10.0.0.5:8091');
    expect(spec.env).toEqual({ PATH: bin, HOME: root });
  });

  it('stays a process when the profile has no image', async () => {
    const ctx = context({}, { svc: { engines: { runtime: 'docker' } } });
    ctx.profile = { ...ctx.profile, profile: { ...ctx.profile.profile, image: '' } };
    expect((await llamaServerAdapter.launch(ctx)).mode).toBe('process');
  });
});

describe('helpers', () => {
  it('ggufContextLength handles bigint, missing keys and unreadable files', async () => {
    expect(await ggufContextLength('x', async () => ({ metadata: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960n } }))).toBe(40960);
    expect(await ggufContextLength('x', async () => ({ metadata: { 'general.architecture': 'qwen3' } }))).toBeNull();
    expect(await ggufContextLength(join(root, 'bin', 'podman'))).toBeNull();
  });

  it('reachableUrl maps wildcard binds to loopback and brackets IPv6', () => {
    expect(reachableUrl('0.0.0.0', 1)).toBe('http://127.0.0.1:1');
    expect(reachableUrl('::', 1)).toBe('http://127.0.0.1:1');
    expect(reachableUrl('::1', 1)).toBe('http://[::1]:1');
    expect(reachableUrl(undefined, 1)).toBe('http://127.0.0.1:1');
  });

  it('engineFor knows every provider; llama-server loads files (no default model id)', () => {
    expect(engineFor('llama-server')).toBe(llamaServerAdapter);
    for (const provider of ['flm', 'moonshine', 'kokoro', 'qwen3tts', 'comfyui']) expect(engineFor(provider)?.provider).toBe(provider);
    expect(engineFor('nonesuch')).toBeUndefined();
    expect(llamaServerAdapter.defaultModelId).toBeUndefined();
    expect(llamaServerAdapter.serves).toEqual(['llm', 'embedding', 'reranking']);
  });
});
