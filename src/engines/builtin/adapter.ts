// The built-in engine's adapter: the same command line as llama-server (one argv builder,
// src/engines/llama-server/argv.ts), run as `node dist/engines/builtin/main.js ...`, with
// the same health probe. What differs:
//   - profile flags are llama-server tuning (-fa, -ctk, --load-mode, ...) and are left out;
//     [server].extra_args still apply, last, and the engine refuses a flag it does not know;
//   - no MTP bundle and no --mmproj: the built-in engine has neither;
//   - a cpu slot gets `--device none`, so node-llama-cpp keeps to its CPU build; any other
//     device lets it pick the GPU build that is installed (CUDA or Vulkan), else the CPU;
//   - always a process on 127.0.0.1: [engines].runtime containers are llama-server's.
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { SlotType } from '../../config/schema/common.js';
import { codeFile } from '../../lib/code-dir.js';
import { SlotError } from '../../protocol/errors.js';
import { flagValue, normalizeArgv } from '../argv.js';
import { ggufContextLength, reachableUrl } from '../llama-server/adapter.js';
import { buildLlamaArgv, type LlamaArgvInput } from '../llama-server/argv.js';
import { processEnv } from '../llama-server/env.js';
import { probeHealth } from '../llama-server/health.js';
import { SLOT_BACKENDS } from '../../protocol/slots.js';
import type { EngineAdapter, EngineRuntimeInfo, LaunchContext, LaunchSpec } from '../types.js';

export const BUILTIN_PROVIDER = 'builtin';
export const BUILTIN_SERVES: readonly SlotType[] = ['llm', 'embedding', 'reranking'];

/** The engine's entry point, beside this file in dist/: a process of its own, never part of the bundle. */
export const BUILTIN_MAIN = codeFile('engines/builtin/main.js');

const isFileSync = (path: string) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

export function buildBuiltinArgv(input: Omit<LlamaArgvInput, 'host'>): string[] {
  const { config } = input;
  const argv = buildLlamaArgv({
    ...input,
    config: { ...config, slot: { ...config.slot, mtp: false, vision: false } },
    profile: { ...input.profile, flags: '', mtp: false },
    host: '127.0.0.1',
  });
  // Before everything, so extra_args can still name another device.
  return config.slot.device === 'cpu' ? normalizeArgv(['--device', 'none', ...argv]) : argv;
}

async function launch(ctx: LaunchContext): Promise<LaunchSpec> {
  const { slot, model: modelCfg, server } = ctx.slot.config;
  if (!BUILTIN_SERVES.includes(slot.type)) {
    throw new SlotError('slot.config_error', `the built-in engine does not serve ${slot.type} slots (it serves ${BUILTIN_SERVES.join(', ')})`, { slot: slot.name, type: slot.type });
  }
  const file = ctx.model.path ? await stat(ctx.model.path).catch(() => undefined) : undefined;
  if (!file?.isFile()) {
    throw new SlotError('slot.model_missing', `model file of "${ctx.model.id}" is missing: ${ctx.model.path || '(no path)'}`, { slot: slot.name, model: ctx.model.id, path: ctx.model.path });
  }
  const nativeContext = ctx.model.contextLength ?? (modelCfg.context_size === null ? await ggufContextLength(ctx.model.path) : null);
  const argv = buildBuiltinArgv({ config: ctx.slot.config, model: ctx.model, profile: ctx.profile.profile, nativeContext, isFile: isFileSync });
  const port = Number(flagValue(argv, '--port'));
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new SlotError('slot.config_error', `the engine port "${flagValue(argv, '--port')}" is not a port number`, { slot: slot.name });
  }
  return {
    command: process.execPath,
    args: [BUILTIN_MAIN, ...argv],
    env: processEnv(ctx.baseEnv, { device: slot.device, gpuIndex: slot.gpu_index, serverEnv: server.env }),
    baseUrl: reachableUrl(flagValue(argv, '--host'), port),
    mode: 'process',
  };
}

export const builtinAdapter: EngineAdapter = {
  provider: BUILTIN_PROVIDER,
  serves: BUILTIN_SERVES,
  launch,
  health: (baseUrl, signal) => probeHealth(baseUrl, signal),
  runtimeInfo: ({ baseUrl, signal }) => builtinRuntimeInfo(baseUrl, signal),
};

/** The engine says what it runs on in GET /v1/models, meta.runtime (engine.ts builtinRuntime). */
async function builtinRuntimeInfo(baseUrl: string, signal: AbortSignal): Promise<EngineRuntimeInfo> {
  const response = await fetch(`${baseUrl}/v1/models`, { signal });
  const body = (await response.json()) as { data?: Array<{ meta?: { runtime?: { backend?: unknown; gpu_layers?: { offloaded?: unknown; total?: unknown } } } }> };
  const runtime = body.data?.[0]?.meta?.runtime;
  const backend = SLOT_BACKENDS.find((b) => b === runtime?.backend) ?? null;
  const { offloaded, total } = runtime?.gpu_layers ?? {};
  return { backend, gpuLayers: typeof offloaded === 'number' ? { offloaded, total: typeof total === 'number' ? total : null } : null };
}
