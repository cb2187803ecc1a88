// The llama-server command line for a slot (docs/configuration.md, "Slot files"). Pure: the
// caller supplies the native context length and a file test, so every rule is unit-tested.
// Order, before the last-wins normalisation:
//   profile flags (MTP-expanded); --model; --host/--port; --alias; --ctx-size; -ngl;
//   --rpc; type flags; --parallel; chat template; --mmproj; [server].extra_args.
// Everything after the profile overrides it, and extra_args override everything.
// [model].rope_freq_base is deprecated and never emitted (docs/configuration.md, "Slot files").
import { basename, isAbsolute, resolve } from 'node:path';
import type { SlotFile } from '../../config/schema/slot.js';
import type { Profile } from '../../config/schema/profiles.js';
import type { Device } from '../../config/schema/common.js';
import { SlotError } from '../../protocol/errors.js';
import { ownedFlagsIn, ownedFlagsMessage } from '../../protocol/host-only.js';
import { flagKey, flagValue, isFlag, normalizeArgv, tokenize } from '../argv.js';
import type { ResolvedModel } from '../types.js';

/** Derived context sizes are capped here: a large native window would eat memory unasked. */
export const CONTEXT_CAP = 32_768;
/** Derived context sizes never go below this. */
export const CONTEXT_FLOOR = 512;
/** When nothing says how long the model's context is. Never llama-server's own 4096. */
export const CONTEXT_FALLBACK = 8_192;
/** `[model].n_gpu_layers = -1` means all layers; llama-server spells that 999. */
export const ALL_GPU_LAYERS = 999;

/** Multi-token prediction flags; the draft device is filled in per backend. */
export const MTP_BUNDLE = [
  '--spec-type', 'draft-mtp', '--spec-draft-device', 'ROCm0', '--spec-draft-ngl', 'all',
  '--spec-draft-n-max', '4', '--spec-draft-n-min', '0', '--spec-draft-p-min', '0.0', '--spec-draft-p-split', '0.10',
  '--spec-draft-type-k', 'q8_0', '--spec-draft-type-v', 'q8_0', '--spec-draft-threads', '16',
  '--spec-draft-threads-batch', '32', '--spec-draft-poll', '1', '--spec-draft-poll-batch', '1',
] as const;

/** The MTP draft device by GPU backend; the profile's backend first, else the slot's device, else ROCm0. */
export function draftDevice(backend: Profile['backend'], device: Device): string {
  const byBackend = { rocm: 'ROCm0', vulkan: 'Vulkan0', cuda: 'CUDA0' } as const;
  if (backend) return byBackend[backend];
  const byDevice: Partial<Record<Device, string>> = { 'gpu-rocm': 'ROCm0', 'gpu-vulkan': 'Vulkan0', 'gpu-cuda': 'CUDA0' };
  return byDevice[device] ?? 'ROCm0';
}

const MTP_MARKER = /(^|[-_.])mtp([-_.]|$)/i;

/** Does the model ship MTP heads? Registry tag `mtp`, or a delimited `mtp` in its id or file name. */
export function isMtpCapable(model: Pick<ResolvedModel, 'id' | 'path' | 'tags'>): boolean {
  return model.tags.some((t) => t.toLowerCase() === 'mtp') || MTP_MARKER.test(model.id) || MTP_MARKER.test(basename(model.path));
}

/** The MTP tri-state ([slot].mtp): true on, false off, null = profile opts in and model is capable. */
export function mtpEnabled(slotMtp: boolean | null, profile: Pick<Profile, 'mtp'>, model: Pick<ResolvedModel, 'id' | 'path' | 'tags'>): boolean {
  return slotMtp ?? (profile.mtp && isMtpCapable(model));
}

/** merge_flags(BUNDLE, profile): bundle flags the profile already sets are dropped; the rest come first. */
export function mergeMtpBundle(profileTokens: readonly string[], device: string): string[] {
  const profileKeys = new Set(profileTokens.filter(isFlag).map(flagKey));
  const bundle: string[] = [];
  for (let i = 0; i < MTP_BUNDLE.length; i += 2) {
    const flag = MTP_BUNDLE[i]!;
    if (profileKeys.has(flagKey(flag))) continue;
    bundle.push(flag, flag === '--spec-draft-device' ? device : MTP_BUNDLE[i + 1]!);
  }
  return [...bundle, ...profileTokens];
}

/**
 * Context size: the slot's explicit value as given; else min(native, CONTEXT_CAP) raised
 * to CONTEXT_FLOOR; else CONTEXT_FALLBACK.
 */
export function resolveContextSize(explicit: number | null, native: number | null): number {
  if (explicit !== null) return explicit;
  if (native !== null && Number.isFinite(native) && native > 0) return Math.max(CONTEXT_FLOOR, Math.min(Math.floor(native), CONTEXT_CAP));
  return CONTEXT_FALLBACK;
}

/** Whether a `[slot].chat_template` names a file (then it is read from the host), not a built-in template. */
export function chatTemplateIsPath(value: string): boolean {
  return value.includes('/') || value.endsWith('.jinja');
}

/**
 * `[slot].chat_template`: a value that looks like a path (contains "/" or ends in .jinja)
 * must be an existing file and becomes --chat-template-file (made absolute); anything else
 * is one of llama-server's built-in template names (chatml, llama3, ...). "auto" = none.
 */
export function chatTemplateArgs(value: string | null, isFile: (path: string) => boolean): string[] {
  if (value === null || value === 'auto') return [];
  if (!chatTemplateIsPath(value)) return ['--chat-template', value];
  const path = isAbsolute(value) ? value : resolve(value);
  if (!isFile(path)) {
    throw new SlotError('slot.config_error', `chat_template "${value}" looks like a file path, but no such file exists`, { chat_template: value });
  }
  return ['--chat-template-file', path];
}

/** Tokenise a free-form flag string, turning a quoting mistake into a slot.config_error. */
export function tokenizeFlags(text: string | null, where: string): string[] {
  if (!text) return [];
  let words: string[];
  try {
    words = tokenize(text);
  } catch (error) {
    throw new SlotError('slot.config_error', `${where} cannot be split into arguments: ${(error as Error).message}`, { where });
  }
  // The configuration refuses these at load; an engine is never started with them either.
  const owned = ownedFlagsIn(words);
  if (owned.length > 0) throw new SlotError('slot.config_error', `${where}: ${ownedFlagsMessage(owned)}`, { where, flags: owned });
  return words;
}

export interface LlamaArgvInput {
  config: Pick<SlotFile, 'slot' | 'model' | 'server'>;
  model: ResolvedModel;
  profile: Profile;
  /** The model's native context length (registry or GGUF header), or null when unknown. */
  nativeContext: number | null;
  /** 127.0.0.1 for a process, 0.0.0.0 inside a container. */
  host: string;
  /** Is this an existing regular file? (for a chat_template path) */
  isFile: (path: string) => boolean;
}

/**
 * Layers offloaded: -1 means all (999); a cpu slot offloads none, even with a GPU-enabled
 * build, unless it has RPC workers: llama.cpp counts them as offload devices, so -ngl is what
 * puts layers on them (a cpu main host with workers keeps only what stays on the host).
 */
export function gpuLayers(device: Device, nGpuLayers: number, rpcWorkers = 0): number {
  if (device === 'cpu' && rpcWorkers === 0) return 0;
  return nGpuLayers < 0 ? ALL_GPU_LAYERS : nGpuLayers;
}

export function buildLlamaArgv(input: LlamaArgvInput): string[] {
  const { slot, model: modelCfg, server } = input.config;
  const { model, profile } = input;
  const profileTokens = tokenizeFlags(profile.flags, 'the profile\'s flags');
  const extra = tokenizeFlags(server.extra_args, '[server].extra_args');

  const argv = mtpEnabled(slot.mtp, profile, model) ? mergeMtpBundle(profileTokens, draftDevice(profile.backend, slot.device)) : [...profileTokens];
  argv.push('--model', model.path);
  argv.push('--host', input.host, '--port', String(slot.port));
  argv.push('--alias', model.id);
  argv.push('--ctx-size', String(resolveContextSize(modelCfg.context_size, input.nativeContext)));
  argv.push('-ngl', String(gpuLayers(slot.device, modelCfg.n_gpu_layers, slot.rpc_workers.length)));
  // llama.cpp spreads the layers over every device, the workers included, by free memory.
  if (slot.rpc_workers.length > 0) argv.push('--rpc', slot.rpc_workers.join(','));
  if (slot.type === 'embedding') {
    argv.push('--embedding');
    // llama-server refuses /v1/embeddings with pooling "none" (DESIGN.md, Gotchas).
    if (flagValue([...profileTokens, ...extra], '--pooling') === undefined) argv.push('--pooling', 'mean');
  } else if (slot.type === 'reranking') {
    argv.push('--reranking');
  }
  if (slot.workers > 1) argv.push('--parallel', String(slot.workers));
  argv.push(...chatTemplateArgs(slot.chat_template, input.isFile));
  if (slot.vision && model.mmproj) argv.push('--mmproj', model.mmproj);
  argv.push(...extra);
  return normalizeArgv(argv);
}
