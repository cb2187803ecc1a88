// The slot summary shown by /api/status and `svc status`, from the supervisor's views.
import type { SlotsSummary } from '../protocol/system.js';
import type { SlotView } from './view.js';

export type { SlotsSummary };

export function summarizeSlots(views: readonly SlotView[]): SlotsSummary {
  const by_state: Record<string, number> = {};
  for (const view of views) by_state[view.state] = (by_state[view.state] ?? 0) + 1;
  return {
    total: views.length,
    enabled: views.filter((v) => v.enabled).length,
    by_state,
    slots: views.map(({ name, type, device, provider, port, enabled, state, model, pid }) => ({ name, type, device, provider, port, enabled, state, model, pid })),
  };
}
