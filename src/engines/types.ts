// What the slot supervisor needs from an engine, whatever the engine is: how to launch it
// for a slot, and how to tell whether it is up. Adapters hold no slot state.
import type { SlotEntry } from '../config/load.js';
import type { ProfileChoice } from '../config/profiles.js';
import type { SlotType } from '../config/schema/common.js';
import type { SlotFile } from '../config/schema/slot.js';
import type { SvcToml } from '../config/schema/svc-toml.js';
import type { GpuLayersPayload, SlotBackend } from '../protocol/slots.js';

/** The model a slot loads, resolved from [model].path or the registry. */
export interface ResolvedModel {
  /** Registry id (or the file name without extension for a direct path); sent as --alias. */
  id: string;
  /** The model file or folder; '' for an engine that names its model by id alone (see defaultModelId). */
  path: string;
  /** Multimodal projector beside the model, when discovery found one. */
  mmproj: string | null;
  /** Registry tags; `mtp` marks models that ship MTP heads. */
  tags: readonly string[];
  /** The registry's recorded native context length, when known (else read from the file). */
  contextLength: number | null;
}

export interface LaunchContext {
  slot: SlotEntry;
  model: ResolvedModel;
  profile: ProfileChoice;
  svc: SvcToml;
  /** The slot's state directory (logs, state.json); engines may keep scratch files here. */
  stateDir: string;
  /** The environment the gateway runs with (binary lookup: SVC_LLAMA_SERVER, PATH). */
  baseEnv: NodeJS.ProcessEnv;
  /** The model store mounted into containers. */
  modelStore: string;
}

export interface LaunchSpec {
  command: string;
  args: string[];
  /** The complete environment of the engine process. */
  env: Record<string, string>;
  /** Base URL the engine answers on, e.g. http://127.0.0.1:8081. */
  baseUrl: string;
  /** How the command was built, for `svc slot show` ("process" or "container"). */
  mode: 'process' | 'container';
  /**
   * A check run once the slot is starting, before the engine is spawned; it throws a
   * SlotError to fail the start (a llama-server slot's rpc_workers must accept a connection).
   */
  preflight?: (signal: AbortSignal) => Promise<void>;
}

/** One HTTP route of an engine, as the engine itself spells it. */
export interface EngineRoute {
  method: 'GET' | 'POST';
  path: string;
}

/** What an engine really runs on once ready: the backend computing its layers, and how many are on a GPU. */
export interface EngineRuntimeInfo {
  backend: SlotBackend | null;
  gpuLayers: GpuLayersPayload | null;
}

export interface RuntimeInfoContext {
  baseUrl: string;
  /** The engine's arguments (what it was asked for, e.g. -ngl). */
  args: readonly string[];
  /** The running engine's log lines still in the supervisor's ring (oldest first). */
  logLines: readonly string[];
  signal: AbortSignal;
}

/** What a health probe saw: down (no answer), loading (answers, not ready), ready. */
export type HealthState = 'down' | 'loading' | 'ready';

export interface EngineAdapter {
  readonly provider: string;
  readonly serves: readonly SlotType[];
  /** Build the launch; throws SlotError (e.g. slot.binary_missing) when it cannot. */
  launch(context: LaunchContext): Promise<LaunchSpec>;
  /** One bounded health probe. */
  health(baseUrl: string, signal: AbortSignal): Promise<HealthState>;
  /**
   * Once the engine is healthy: the backend it really uses, by the one mechanism this engine
   * offers (the built-in engine's GET /v1/models meta.runtime; llama-server's load log).
   * Absent, or a field null: unknown. It must not throw for an answer it cannot read.
   */
  runtimeInfo?(context: RuntimeInfoContext): Promise<EngineRuntimeInfo>;
  /**
   * For engines that name their model by id rather than load a model file (flm, moonshine,
   * kokoro, qwen3tts, comfyui): the id a slot serves when its [model].default is empty, or
   * '' when the engine has none. Absent: the engine loads a file (registry or [model].path).
   */
  defaultModelId?(slot: SlotFile): string;
  /** An engine that loads no model at all (llama.cpp's rpc-server: the main host sends it the layers). */
  readonly loadsNoModel?: boolean;
  /**
   * The engine's HTTP routes by purpose (health, speech, prompt, ...), in its own wire
   * format. The /v1 dispatcher forwards OpenAI paths as they are; these
   * say which of them the engine has, and where its non-OpenAI routes are (ComfyUI).
   */
  readonly routes?: Readonly<Record<string, EngineRoute>>;
}
