// Answers of the open system routes (docs/api.md: GET /api/status, GET /api/hardware), so
// the server's handlers and the dashboard's reads are checked against one shape.
import type { GpuModeView } from './events.js';
import type { HardwareProbe } from './hardware.js';
import type { SlotMetricsSnapshot, SlotViewPayload } from './slots.js';

/** A live reading of this host, taken per request. */
export interface HostSnapshot {
  hostname: string;
  platform: string;
  arch: string;
  cpu_count: number;
  cpu_model: string;
  mem_total_mb: number;
  /** MemAvailable on Linux (what the kernel can hand out without swapping), else free memory. */
  mem_available_mb: number;
}

/** GET /api/hardware: the cached probe (null before the first) beside a live reading. */
export interface HardwarePayload {
  probe: HardwareProbe | null;
  host: HostSnapshot;
}

export interface SlotsSummary {
  total: number;
  enabled: number;
  by_state: Record<string, number>;
  slots: Array<Pick<SlotViewPayload, 'name' | 'type' | 'device' | 'provider' | 'port' | 'enabled' | 'state' | 'model' | 'pid'>>;
}

/** GET /api/status. */
export interface StatusPayload {
  version: string;
  uptime_s: number;
  started_at: string;
  config_root: string;
  state_root: string;
  home_source: string;
  listen: { host: string; port: number };
  auth_enabled: boolean;
  config_warnings: string[];
  slots: Omit<SlotsSummary, 'slots'> & { slots: Array<SlotsSummary['slots'][number] & { metrics: SlotMetricsSnapshot }> };
  gpu: GpuModeView;
  /** Requests in flight over every slot, and free host memory: what peer gateways balance by (docs/scaling.md). */
  load: { in_flight: number; free_memory_mib: number };
}
