// The enumerations and name rules of the wire (docs/api.md, docs/configuration.md): what a
// slot's type, device and provider can be, how slots are named, which ports they take.
// Config schemas, request schemas, the server and the CLI all use these one definitions.
import { z } from 'zod';

export const DEVICES = ['gpu-rocm', 'gpu-vulkan', 'gpu-cuda', 'cpu', 'npu'] as const;
// `builtin` is svc's own engine (node-llama-cpp), beyond the spec's list (issue 5).
export const PROVIDERS = ['llama-server', 'builtin', 'flm', 'moonshine', 'kokoro', 'qwen3tts', 'comfyui', 'llama-rpc'] as const;
export const SLOT_TYPES = ['llm', 'embedding', 'reranking', 'transcription', 'tts', 'image', 'rpc-worker'] as const;
export const MEMORY_ENGINES = ['cognee', 'hindsight', 'mem0', 'pgvector'] as const;
export const UPDATE_CHANNELS = ['stable', 'nightly'] as const;
export const TOKEN_SCOPES = ['admin', 'all', 'v1-only', 'read-only'] as const;
export const TTS_FORMATS = ['mp3', 'wav', 'opus', 'flac', 'pcm'] as const;
export const SLOT_ROLES = ['primary', 'utility', 'npu'] as const;

export type Device = (typeof DEVICES)[number];
export type Provider = (typeof PROVIDERS)[number];
export type SlotType = (typeof SLOT_TYPES)[number];
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** The provider of image slots; type = image implies it and it is never named on its own. */
export const IMAGE_PROVIDER = 'comfyui';
/** Providers `slot create --provider` accepts: every engine but comfyui (docs/cli.md, "svc slot"). */
export const CREATE_PROVIDERS: readonly Provider[] = PROVIDERS.filter((p) => p !== IMAGE_PROVIDER);

/** Slot names (and anything that names a slot): lowercase alphanumeric, `-`, `_`, starts alphanumeric, at most 32. */
export const SLOT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;
export const SLOT_NAME_RULE = 'lowercase letters, digits, "-" and "_", starting with a letter or digit, at most 32 characters';
export const slotName = () => z.string().regex(SLOT_NAME_PATTERN, { message: `expected a slot name: ${SLOT_NAME_RULE}` });

/** Environment variable names as POSIX shells accept them. */
export const ENV_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Ports, three figures for two things: a slot's own port is 8081-8200; the
 * pool new slots get one from ([slots].port_range_start-port_range_end) is 8081-8099 by
 * default and may be set anywhere within 8081-8187, below the image engine's 8188.
 */
export const SLOT_PORT_MIN = 8081;
export const SLOT_PORT_MAX = 8200;
/** The auto-allocation pool must stay below the image engine's port. */
export const POOL_PORT_LIMIT = 8188;
/** The pool's default ([slots].port_range_start, port_range_end). */
export const POOL_DEFAULT = { start: 8081, end: 8099 } as const;

/** "an llm slot", "an embedding slot", "a tts slot": the article as the type is read aloud (el-el-em, tee-tee-ess). */
export function slotTypePhrase(type: string): string {
  return `${/^(?:[aeio]|llm\b)/i.test(type) ? 'an' : 'a'} ${type} slot`;
}
