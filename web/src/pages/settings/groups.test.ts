import { describe, expect, it } from 'vitest';
import type { SettingDescription } from '../../../../src/protocol/settings-wire.js';
import { groupSettings } from './groups.js';

const key = (dotted: string): SettingDescription => {
  const section = dotted.split('.').slice(0, -1).join('.');
  return { key: dotted, section, type: 'integer', nullable: false, default: 0, description: '', apply_class: 'live' };
};

describe('groupSettings', () => {
  it('puts the Advanced panel first, then every other section, losing no key', () => {
    const keys = ['meta.schema_version', 'slots.max_slots', 'memory.engine', 'memory.embedding.rerank_model', 'memory.graph.enabled', 'api.max_body_mb', 'activity.enabled', 'dispatcher.prefetch_timeout_s', 'future.thing', 'engines.x.y'].map(key);
    const groups = groupSettings(keys);
    expect(groups.map((g) => [g.title, g.advanced])).toEqual([
      ['Slots runtime', true],
      ['Dispatcher', true],
      ['Memory', true],
      ['Memory graph extraction', true],
      ['Activity log', true],
      ['File layout', false],
      ['API', false],
      ['[future]', false],
      ['Engines', false],
    ]);
    expect(groups.find((g) => g.id === 'memory')?.keys.map((k) => k.key)).toEqual(['memory.engine', 'memory.embedding.rerank_model']);
    expect(groups.find((g) => g.id === 'engines')?.sections).toEqual(['engines', 'engines.x']);
    expect(groups.flatMap((g) => g.keys).length).toBe(keys.length);
  });

  it('leaves out a group with no keys', () => {
    expect(groupSettings([key('activity.enabled')]).map((g) => g.id)).toEqual(['activity']);
  });
});
