// The engine adapters by provider label ([slot].provider): llama-server, the built-in engine
// (node-llama-cpp, same dialect), and the engines svc starts from a command line or a
// container image (flm, moonshine, kokoro, qwen3tts, comfyui), and llama.cpp's rpc-server
// (llama-rpc), a worker that lends its device to a llama-server on another host.
import { builtinAdapter } from './builtin/adapter.js';
import { comfyUiAdapter } from './comfyui/adapter.js';
import { flmAdapter } from './flm/adapter.js';
import { kokoroAdapter } from './kokoro/adapter.js';
import { llamaRpcAdapter } from './llama-rpc/adapter.js';
import { llamaServerAdapter } from './llama-server/adapter.js';
import { moonshineAdapter } from './moonshine/adapter.js';
import { qwen3TtsAdapter } from './qwen3tts/adapter.js';
import type { EngineAdapter } from './types.js';

const ADAPTERS: ReadonlyMap<string, EngineAdapter> = new Map(
  [llamaServerAdapter, builtinAdapter, flmAdapter, moonshineAdapter, kokoroAdapter, qwen3TtsAdapter, comfyUiAdapter, llamaRpcAdapter].map((a) => [a.provider, a]),
);

/** The adapter for a provider, or undefined when no engine of that name exists. */
export function engineFor(provider: string): EngineAdapter | undefined {
  return ADAPTERS.get(provider);
}

export type { EngineAdapter, HealthState, LaunchContext, LaunchSpec, ResolvedModel } from './types.js';
