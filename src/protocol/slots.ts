// Wire shapes of /api/slots and /api/install/slots, shared by the server and the CLI
// (docs/api.md, "Slots"). The server builds SlotViewPayload from src/slots/view.ts; the
// route module checks at compile time that the two agree.

export const SLOT_VIEW_STATES = ['stopped', 'starting', 'warming', 'ready', 'stopping', 'error', 'disabled'] as const;
export type SlotViewState = (typeof SLOT_VIEW_STATES)[number];

/** What computes an engine's model layers, as the engine itself reports it (not the configured device). */
export const SLOT_BACKENDS = ['cpu', 'cuda', 'vulkan', 'rocm', 'metal'] as const;
export type SlotBackend = (typeof SLOT_BACKENDS)[number];

/** Model layers on a GPU; `total` is null when the engine did not say. */
export interface GpuLayersPayload {
  offloaded: number;
  total: number | null;
}

export interface SlotFailurePayload {
  code: string;
  message: string;
  at: string;
  exit_code?: number | null;
  signal?: string | null;
  stderr_tail?: string;
}

/** One slot: its config summary joined with its runtime state. */
export interface SlotViewPayload {
  name: string;
  state: SlotViewState;
  type: string;
  device: string;
  provider: string;
  profile: string | null;
  port: number;
  enabled: boolean;
  /** The model running now; for a stopped slot, the model its next start loads. */
  model: string;
  pid: number | null;
  base_url: string | null;
  in_flight: number;
  last_used_at: string | null;
  started_at: string | null;
  idle_timeout_s: number;
  restarts: number;
  memory_mb: number | null;
  /** The backend the running engine really uses; null while stopped or unknown (docs/api.md). */
  backend: SlotBackend | null;
  gpu_layers: GpuLayersPayload | null;
  /** E.g. a gpu-* device whose engine runs on the CPU; empty when all is as configured. */
  warnings: string[];
  last_error: SlotFailurePayload | null;
}

export interface SlotListPayload {
  slots: SlotViewPayload[];
}

/** The command a start would run (`svc slot show`). */
export interface SlotLaunchPayload {
  mode: 'process' | 'container';
  command: string;
  args: string[];
  /** The whole command, shell-quoted, for copying into a terminal. */
  command_line: string;
  /** Environment variables the engine gets on top of (or instead of) the gateway's own. */
  env: Record<string, string>;
  base_url: string;
}

export interface SlotDetailPayload extends SlotViewPayload {
  /** The slot file, relative to the config root (slots/<name>.toml). */
  file: string;
  /** The slot file as validated, every default filled in. */
  config: Record<string, Record<string, unknown>>;
  /** The command the next start runs, or null when it cannot be built (see launch_error). */
  launch: SlotLaunchPayload | null;
  launch_error: { code: string; message: string; details: Record<string, unknown> } | null;
}

export type { CreateSlotRequest, EditSlotRequest } from './slot-requests.js';

/** POST /api/slots (201): the new slot, which engine it got and why, and what will keep it from starting. */
export interface CreateSlotPayload extends SlotViewPayload {
  /** The context size written, or null for a type without one (tts, transcription, image). */
  ctx_size: number | null;
  /** Why this provider: given, or the default rule's reason (no llama-server found → builtin, ...). */
  provider_reason: string;
  /** Problems found at create time (engine binary or model file missing, ctx_size above the model's native context, ...). */
  warnings: string[];
}

export interface SlotChangePayload {
  slot: SlotViewPayload;
  /** Changed keys of the slot file as `section.key`, with their old and new values. */
  changes: Array<{ key: string; before: unknown; after: unknown }>;
  /** The engine runs with the old settings; `svc slot restart <name>` applies them. */
  restart_required: boolean;
}

/** DELETE /api/slots/<name>. */
export interface DeleteSlotPayload {
  deleted: string;
  file: string;
  /** The state directory (engine.log, state.json) is kept. */
  state_dir: string;
  /** The state the slot was in before it was stopped. */
  was: SlotViewState;
}

/** PUT /api/install/slots/<name>/model. */
export interface AssignSlotModelPayload {
  slot: SlotViewPayload;
  model: string;
  before: string;
}

/** GET /api/slots/<name>/logs (without follow). */
export interface SlotLogsPayload {
  slot: string;
  lines: string[];
}

/** Per-slot request metrics in /api/status (counted by src/dispatch/metrics.ts). */
export interface SlotMetricsSnapshot {
  requests: { ok: number; error: number; cancelled: number };
  errors: Record<string, number>;
  tokens_total: number;
  tokens_per_second: number;
  /** Over the newest 512 streamed requests; null before the first. */
  ttft_ms_avg: number | null;
  /** Over the newest 512 requests; null before the first. */
  latency_ms_avg: number | null;
  latency_ms_p50: number | null;
}
