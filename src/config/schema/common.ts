// Enumerations and field helpers shared by every configuration schema (SPEC.md, Enumerations).
import { z } from 'zod';

export const DEVICES = ['gpu-rocm', 'gpu-vulkan', 'gpu-cuda', 'cpu', 'npu'] as const;
// `builtin` is svc's own engine (node-llama-cpp), beyond the spec's list (issue 5).
export const PROVIDERS = ['llama-server', 'builtin', 'flm', 'moonshine', 'kokoro', 'qwen3tts', 'comfyui'] as const;
export const SLOT_TYPES = ['llm', 'embedding', 'reranking', 'transcription', 'tts', 'image'] as const;
export const MEMORY_ENGINES = ['cognee', 'hindsight', 'mem0', 'pgvector'] as const;
export const UPDATE_CHANNELS = ['stable', 'nightly'] as const;
export const TOKEN_SCOPES = ['admin', 'all', 'v1-only', 'read-only'] as const;
export const TTS_FORMATS = ['mp3', 'wav', 'opus', 'flac', 'pcm'] as const;
export const SLOT_ROLES = ['primary', 'utility', 'npu'] as const;

export type Device = (typeof DEVICES)[number];
export type Provider = (typeof PROVIDERS)[number];
export type SlotType = (typeof SLOT_TYPES)[number];
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** How a change to a key takes effect: at once, after a service restart, or after a manual restart. */
export type ApplyClass = 'live' | `restart:${string}` | 'manual';

/** Metadata every svc.toml key carries; it feeds /api/settings/schema and docs/configuration.md. */
export interface KeyMeta {
  description: string;
  apply: ApplyClass;
}

/** Slot names (and anything that names a slot): lowercase alphanumeric, `-`, `_`, starts alphanumeric, at most 32. */
export const SLOT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;
export const SLOT_NAME_RULE = 'lowercase letters, digits, "-" and "_", starting with a letter or digit, at most 32 characters';

export const slotName = () => z.string().regex(SLOT_NAME_PATTERN, { message: `expected a slot name: ${SLOT_NAME_RULE}` });

/** Environment variable names as POSIX shells accept them. */
export const ENV_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const envVarName = () =>
  z.string().regex(ENV_KEY_PATTERN, { message: 'expected an environment variable name matching [A-Za-z_][A-Za-z0-9_]*' });

export const httpUrl = () =>
  z.string().refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, { message: 'expected an http:// or https:// URL' });

export const isoTimestamp = () =>
  z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/, { message: 'expected an ISO 8601 UTC timestamp like 2026-01-31T12:00:00Z' });

/** Slot ports: 8081-8200 (SPEC.md, Limits). */
export const SLOT_PORT_MIN = 8081;
export const SLOT_PORT_MAX = 8200;
/** The auto-allocation pool must stay below the image engine's port. */
export const POOL_PORT_LIMIT = 8188;
