// How a slot looks from outside (GET /api/slots, `svc slot list|status|show`): its config
// summary joined with its runtime state.
import type { SlotEntry } from '../config/load.js';
import type { SlotViewPayload } from '../protocol/slots.js';
import type { SlotRuntime } from './slot-runtime.js';
import { backendWarnings } from './backend.js';
import { isLive } from './state-machine.js';

/** A slot as the API shows it; the wire type lives in protocol so the CLI shares it. */
export type SlotView = SlotViewPayload;

/**
 * `nextModel` is the model the next start loads (a non-persisted override from load -m or
 * swap --no-persist, else [model].default, else the engine's default id). A stopped slot
 * shows it, not the model its last run had. `servedBy` is the runtime of the engine that
 * serves a shadow slot (the NPU anchor's): its state, process and address are the slot's.
 * Memory is the supervisor tick's last sample: building a view never reads /proc (the /v1
 * hot path builds views per request); `withMemory: false` leaves it out.
 */
export function slotView(entry: SlotEntry, own: SlotRuntime, idleTimeoutS: number, nextModel?: string, withMemory = true, servedBy?: SlotRuntime): SlotView {
  const { slot } = entry.config;
  const runtime = slot.enabled && servedBy ? servedBy : own;
  const routing = slotRouting(entry, own, nextModel, servedBy);
  const iso = (ms: number | null) => (ms ? new Date(ms).toISOString() : null);
  const info = isLive(runtime.state) ? runtime.runtimeInfo : null;
  return {
    name: routing.name,
    state: routing.state,
    type: routing.type,
    device: routing.device,
    provider: slot.provider,
    profile: slot.profile,
    port: slot.port,
    enabled: routing.enabled,
    model: routing.model,
    // After a crash or a failed start the runtime still holds the dead engine's pid (last_error has its exit).
    pid: isLive(runtime.state) ? runtime.pid : null,
    base_url: isLive(runtime.state) ? runtime.baseUrl : null,
    in_flight: runtime.inFlight,
    last_used_at: iso(runtime.lastUsedAt || null),
    started_at: iso(runtime.startedAt),
    idle_timeout_s: idleTimeoutS,
    restarts: own.restarts,
    memory_mb: withMemory && isLive(runtime.state) ? runtime.memoryMb : null,
    backend: info?.backend ?? null,
    gpu_layers: info?.gpuLayers ?? null,
    warnings: backendWarnings(slot.device, info),
    last_error: routing.last_error,
  };
}

/** What routing reads of a slot, per request: the part of its view that costs no formatting. */
export type SlotRouting = Pick<SlotView, 'name' | 'state' | 'type' | 'device' | 'enabled' | 'model' | 'last_error'>;

export function slotRouting(entry: SlotEntry, own: SlotRuntime, nextModel?: string, servedBy?: SlotRuntime): SlotRouting {
  const { slot, model } = entry.config;
  const runtime = slot.enabled && servedBy ? servedBy : own;
  const next = nextModel ?? model.default;
  return {
    name: entry.name,
    state: !slot.enabled && runtime.state === 'stopped' ? 'disabled' : runtime.state,
    type: slot.type,
    device: slot.device,
    enabled: slot.enabled,
    model: runtime.state === 'stopped' || runtime !== own ? next : (runtime.modelId ?? next),
    last_error: runtime.lastError,
  };
}
