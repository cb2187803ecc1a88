// POST /api/stacks/snapshot: the enabled slots as they are configured now, as a stack that
// applying later brings back (model, profile, device, engine, role, extra engine arguments).
import type { ResolvedConfig } from '../config/load.js';
import type { Stack } from '../config/schema/stacks.js';
import { parseStack } from './catalogue.js';

export interface SnapshotRequest {
  slug: string;
  name?: string;
  description?: string;
}

export function snapshotStack(config: Pick<ResolvedConfig, 'slots'>, request: SnapshotRequest, author: string, now = new Date()): Stack {
  const slots = config.slots.filter((s) => s.config.slot.enabled).map((s) => ({
    // A slot with no default model still gets its row, whose model is required: "unset".
    slot: s.name, model: s.config.model.default || 'unset', profile: s.config.slot.profile, device: s.config.slot.device, provider: s.config.slot.provider, role: s.config.slot.role,
    ...(s.config.server.extra_args ? { server_extra_args: s.config.server.extra_args } : {}),
  }));
  const description = request.description ?? `snapshot of ${slots.length} slot(s), ${now.toISOString()}`;
  return parseStack({ name: request.name ?? request.slug, description, author, slots }, `snapshot ${request.slug}`);
}
