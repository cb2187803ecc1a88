// slots/<name>.toml: one file per slot (docs/configuration.md, "Slot files"). Unknown keys are reported
// as warnings and kept: a read-modify-write goes through the raw document, not this schema.
import { z } from 'zod';
import {
  DEVICES,
  ENV_KEY_PATTERN,
  PROVIDERS,
  SLOT_PORT_MAX,
  SLOT_PORT_MIN,
  SLOT_ROLES,
  SLOT_TYPES,
  slotName,
  TTS_FORMATS,
} from './common.js';
import { NUL_REFUSED } from '../../protocol/input-bounds.js';
import { nulFreeString } from '../../protocol/no-nul.js';

const described = <T extends z.ZodType>(schema: T, description: string) => schema.meta({ description });

/**
 * One llama.cpp RPC worker as llama-server's --rpc reads it: an IPv4 address or a host name,
 * a colon, a port (ggml-rpc splits at the first colon and connects over IPv4 only).
 */
const rpcWorkerEndpoint = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?:\d{1,5}$/, { message: 'expected "host:port" (an IPv4 address or a host name; llama.cpp\'s RPC client has no IPv6)' })
  .refine((v) => Number(v.slice(v.lastIndexOf(':') + 1)) >= 1 && Number(v.slice(v.lastIndexOf(':') + 1)) <= 65535, { message: 'expected a port 1-65535' });

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export const slotSection = z.strictObject({
  name: described(slotName(), 'Slot name; must match the file name.'),
  port: described(z.int().min(SLOT_PORT_MIN).max(SLOT_PORT_MAX), 'Local port of the engine, 8081-8200, bound on 127.0.0.1.'),
  type: described(z.enum(SLOT_TYPES).default('llm'), 'What the slot serves; decides which /v1 routes reach it.'),
  device: described(z.enum(DEVICES).default('gpu-rocm'), 'Where the engine runs.'),
  gpu_index: described(z.int().min(0).nullable().default(null), 'Pin to one GPU on multi-GPU hosts; null = all GPUs.'),
  provider: described(z.enum(PROVIDERS).default('llama-server'), 'Engine that serves the slot.'),
  profile: described(z.string().min(1).nullable().default(null), 'Profile name from profiles.toml; null = the device\'s default profile.'),
  role: described(slotName().nullable().default(null), `Routing hint (${SLOT_ROLES.join(', ')}, or any role name); derived from the slot name when unset.`),
  enabled: described(z.boolean().default(true), 'Start this slot on demand and at startup; disabled slots are never started.'),
  enable_thinking: described(z.boolean().nullable().default(null), 'Per-slot reasoning default; a request may override it.'),
  mtp: described(z.boolean().nullable().default(null), 'Multi-token prediction: true on, false off, null = on only when the profile opts in and the model ships MTP heads.'),
  chat_template: described(z.string().min(1).nullable().default(null), 'Chat-template override; null = the template embedded in the model.'),
  tool_calling: described(z.boolean().nullable().default(null), 'Whether the model can call tools (omni: true offers it tools); null = detected: the built-in engine can, a GGUF can when its chat template mentions tools.'),
  vision: described(z.boolean().default(true), 'Load the model\'s multimodal projector when one sits beside it.'),
  workers: described(z.int().min(1).default(1), 'Parallel request workers.'),
  idle_timeout_s: described(z.int().min(0).nullable().default(null), 'Idle seconds before eviction; overrides [slots].idle_timeout_s (300 by default). 0 disables.'),
  load_timeout_s: described(z.int().min(1).max(86_400).default(600), 'Seconds a start may take before the slot goes to error (separate from the idle timeout).'),
  default_voice: described(z.string().min(1).nullable().default(null), 'TTS only: voice used when a request omits one.'),
  default_speed: described(z.number().min(0.25).max(4.0).nullable().default(null), 'TTS only: speed used when a request omits one.'),
  default_response_format: described(z.enum(TTS_FORMATS).nullable().default(null), 'TTS only: audio format used when a request omits one.'),
  rpc_workers: described(z.array(rpcWorkerEndpoint).default([]), 'llama-server only: llama.cpp rpc-server workers ("host:port") the model\'s layers are spread over (--rpc); each must accept a TCP connection before the slot starts.'),
});

export const modelSection = z.strictObject({
  default: described(z.string().default(''), 'Default model id from the registry.'),
  path: described(z.string().min(1).nullable().default(null), 'A model file to load directly instead of a registry id.'),
  context_size: described(z.int().min(128).nullable().default(null), 'Context window; null = derived from the model (never silently 4096).'),
  n_gpu_layers: described(z.int().min(-1).default(-1), 'Layers offloaded to the GPU; -1 = all.'),
  rope_freq_base: described(z.number().min(0).default(0), 'Deprecated: accepted and kept, never used. Use [server].extra_args.'),
});

const envValue = z.string().refine((v) => !/[\r\n]/.test(v), { message: 'expected a value without newlines' }).refine((v) => !v.includes('\u0000'), { message: NUL_REFUSED });

export const serverSection = z.strictObject({
  extra_args: described(nulFreeString().nullable().default(null), 'Engine command-line flags, applied last so they override the same flag set anywhere else.'),
  env: described(
    z.record(z.string().regex(ENV_KEY_PATTERN, { message: 'expected an environment variable name matching [A-Za-z_][A-Za-z0-9_]*' }), envValue)
      .nullable()
      .default(null),
    'Extra environment for the engine; explicit keys win over GPU-visibility variables.',
  ),
});

export const npuSection = z.strictObject({
  asr: described(z.boolean().default(false), 'Speech recognition on the NPU engine.'),
  embed: described(z.boolean().default(false), 'Embeddings on the NPU engine.'),
});

export const imageSection = z.strictObject({
  idle_restore_minutes: described(z.int().min(0).default(60), 'Idle minutes before stopped LLM GPU slots are restored; 0 = never.'),
  default_size: described(z.string().regex(/^\d{2,5}x\d{2,5}$/, { message: 'expected a size like "1024x1024"' }).default('1024x1024'), 'Default output size WxH.'),
  default_steps: described(z.int().min(0).default(0), 'Default sampler steps; 0 = the model class default.'),
});

/** provider = "llama-rpc" (type = "rpc-worker"): how its rpc-server listens and computes. */
export const rpcSection = z.strictObject({
  host: described(z.string().regex(IPV4, { message: 'expected an IPv4 address (rpc-server binds IPv4 only)' }).default('127.0.0.1'), 'Address rpc-server binds; must be private (loopback, RFC 1918, link-local) unless allow_public.'),
  allow_public: described(z.boolean().default(false), 'Let rpc-server bind a non-private address. It has no authentication: anyone who reaches the port can use the worker.'),
  threads: described(z.int().min(1).nullable().default(null), 'CPU threads of the CPU device (-t); null = rpc-server\'s default (half the cores).'),
  cache: described(z.boolean().default(false), 'Keep large tensors in a local file cache (-c) in the slot\'s state folder, so a reload sends less over the network.'),
});

export const SlotFileSchema = z.strictObject({
  slot: slotSection,
  model: modelSection.prefault({}),
  server: serverSection.prefault({}),
  npu: npuSection.prefault({}),
  image: imageSection.prefault({}),
  rpc: rpcSection.prefault({}),
});

export type SlotFile = z.output<typeof SlotFileSchema>;

/** Keys that only make sense on a tts slot. */
export const TTS_ONLY_KEYS = ['default_voice', 'default_speed', 'default_response_format'] as const;
