import { describe, expect, it } from 'vitest';
import type { ResolvedConfig } from '../config/load.js';
import { SlotFileSchema } from '../config/schema/slot.js';
import { snapshotStack } from './snapshot.js';

const slot = (name: string, port: number, extra: { enabled?: boolean; model?: string; extra_args?: string } = {}) => ({
  name,
  config: SlotFileSchema.parse({
    slot: { name, port, device: 'cpu', provider: 'builtin', enabled: extra.enabled ?? true, profile: 'cpu' },
    model: { default: extra.model ?? 'tiny' },
    ...(extra.extra_args && { server: { extra_args: extra.extra_args } }),
  }),
});
const config = { slots: [slot('chat', 8101, { extra_args: '--threads 2' }), slot('off', 8102, { enabled: false }), slot('empty', 8103, { model: '' })] } as unknown as Pick<ResolvedConfig, 'slots'>;

describe('snapshotStack', () => {
  it('takes the enabled slots as rows, with their extra engine arguments; a slot without a model gets "unset"', () => {
    const stack = snapshotStack(config, { slug: 'now' }, 'cli', new Date('2025-01-02T03:04:05.000Z'));
    expect(stack).toMatchObject({ name: 'now', description: 'snapshot of 2 slot(s), 2025-01-02T03:04:05.000Z', author: 'cli' });
    expect(stack.slots.map((r) => [r.slot, r.model, r.profile, r.device, r.provider, r.server_extra_args])).toEqual([
      ['chat', 'tiny', 'cpu', 'cpu', 'builtin', '--threads 2'],
      ['empty', 'unset', 'cpu', 'cpu', 'builtin', null],
    ]);
  });

  it('takes the name and description asked for', () => {
    expect(snapshotStack(config, { slug: 'now', name: 'Now', description: 'before the trip' }, 'cli')).toMatchObject({ name: 'Now', description: 'before the trip' });
  });
});
