// The slot summary shown by /api/status and `svc status`. Until the supervisor runs slots,
// every configured slot reports "stopped" (or "disabled"): the state comes from config only.
import type { ResolvedConfig } from '../config/load.js';

import type { SlotState } from './state-machine.js';

export interface SlotSummaryRow {
  name: string;
  type: string;
  device: string;
  provider: string;
  port: number;
  enabled: boolean;
  state: SlotState | 'disabled';
  model: string;
}

export interface SlotsSummary {
  total: number;
  enabled: number;
  by_state: Record<string, number>;
  slots: SlotSummaryRow[];
}

export function summarizeSlots(config: ResolvedConfig, stateOf: (name: string) => SlotState = () => 'stopped'): SlotsSummary {
  const slots = config.slots.map(({ name, config: c }): SlotSummaryRow => ({
    name,
    type: c.slot.type,
    device: c.slot.device,
    provider: c.slot.provider,
    port: c.slot.port,
    enabled: c.slot.enabled,
    state: c.slot.enabled ? stateOf(name) : 'disabled',
    model: c.model.default,
  }));
  const by_state: Record<string, number> = {};
  for (const row of slots) by_state[row.state] = (by_state[row.state] ?? 0) + 1;
  return { total: slots.length, enabled: slots.filter((s) => s.enabled).length, by_state, slots };
}
