// How a slot looks from outside (GET /api/slots, `svc slot list|status|show`): its config
// summary joined with its runtime state.
import type { SlotEntry } from '../config/load.js';
import type { SlotViewPayload } from '../protocol/slots.js';
import { residentMemoryMb } from './process.js';
import type { SlotRuntime } from './slot-runtime.js';
import { isLive } from './state-machine.js';

/** A slot as the API shows it; the wire type lives in protocol so the CLI shares it. */
export type SlotView = SlotViewPayload;

/**
 * `modelOverride` is the supervisor's non-persisted model (load -m, swap --no-persist). A
 * stopped slot shows the model its next start loads, not the one its last run had.
 */
/** `withMemory: false` skips reading /proc (the /v1 hot path builds views per request). */
export function slotView(entry: SlotEntry, runtime: SlotRuntime, idleTimeoutS: number, modelOverride?: string, withMemory = true): SlotView {
  const { slot, model } = entry.config;
  const next = modelOverride ?? model.default;
  const iso = (ms: number | null) => (ms ? new Date(ms).toISOString() : null);
  return {
    name: entry.name,
    state: !slot.enabled && runtime.state === 'stopped' ? 'disabled' : runtime.state,
    type: slot.type,
    device: slot.device,
    provider: slot.provider,
    profile: slot.profile,
    port: slot.port,
    enabled: slot.enabled,
    model: runtime.state === 'stopped' ? next : (runtime.modelId ?? next),
    // After a crash or a failed start the runtime still holds the dead engine's pid (last_error has its exit).
    pid: isLive(runtime.state) ? runtime.pid : null,
    base_url: isLive(runtime.state) ? runtime.baseUrl : null,
    in_flight: runtime.inFlight,
    last_used_at: iso(runtime.lastUsedAt || null),
    started_at: iso(runtime.startedAt),
    idle_timeout_s: idleTimeoutS,
    restarts: runtime.restarts,
    memory_mb: withMemory && isLive(runtime.state) && runtime.pid !== null ? (residentMemoryMb(runtime.pid) ?? null) : null,
    last_error: runtime.lastError,
  };
}
