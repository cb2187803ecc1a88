import { describe, expect, it } from 'vitest';
import { SlotFileSchema } from '../config/schema/slot.js';
import { StackSchema } from '../config/schema/stacks.js';
import type { TomlDoc } from '../config/toml.js';
import { planStack, type PlanInput } from './plan.js';
import { desiredSlotDoc, effectiveRows } from './rows.js';

const file = (name: string, port: number, extra: TomlDoc = {}): TomlDoc => ({ slot: { name, port, device: 'cpu', provider: 'builtin', ...extra }, model: { default: 'tiny' } });

function input(stack: unknown, files: Record<string, TomlDoc>, states: Record<string, string>): PlanInput {
  return {
    rows: effectiveRows(StackSchema.parse(stack)),
    files: new Map(Object.entries(files)),
    configs: new Map(Object.entries(files).map(([n, d]) => [n, SlotFileSchema.parse(d)])),
    states: new Map(Object.entries(states)),
    facts: new Map([['new', { port: 8150, type: 'llm', device: 'cpu', provider: 'builtin', context_size: 4096 }], ['chat-embed', { port: 8151, type: 'embedding', device: 'cpu', provider: 'builtin', context_size: 4096 }]]),
    userProfiles: {},
    models: [],
    busyPorts: new Set(),
  };
}

describe('stack plans', () => {
  it('swaps a running slot whose model changes, restarts one whose launch fields change, loads a stopped one, unloads the unnamed running ones', () => {
    const plan = planStack(input({ name: 's', slots: [
      { slot: 'chat', model: 'other' },
      { slot: 'util', model: 'tiny', server_extra_args: '--threads 2' },
      { slot: 'cold', model: 'tiny' },
      { slot: 'new', model: 'tiny' },
    ] }, { chat: file('chat', 8101), util: file('util', 8102), cold: file('cold', 8103), extra: file('extra', 8104) }, { chat: 'ready', util: 'ready', cold: 'stopped', extra: 'warming' }));
    expect(plan.problems).toEqual([]);
    expect(plan.changes.map((c) => [c.slot, c.action, c.runtime])).toEqual([['chat', 'edit', 'swap'], ['util', 'edit', 'restart'], ['cold', 'unchanged', 'load'], ['new', 'create', 'load']]);
    expect(plan.unloads).toEqual(['extra']);
    expect(plan.changes[0]!.fields).toEqual([{ key: 'model.default', before: 'tiny', after: 'other' }]);
  });

  it('keeps unknown keys and fields a stack does not carry; a null row field removes the key', () => {
    const doc = desiredSlotDoc(effectiveRows(StackSchema.parse({ name: 's', slots: [{ slot: 'chat', model: 'm' }] }))[0]!, { slot: { name: 'chat', port: 8101, role: 'primary', future_key: 1 }, model: { default: 'x', path: '/p', context_size: 512 } }, undefined);
    expect(doc).toEqual({ slot: { name: 'chat', port: 8101, future_key: 1, enabled: true, vision: true }, model: { default: 'm', context_size: 512 } });
  });

  it('turns child rows into slots of their own and refuses incoherent rows, two primaries and a name too long', () => {
    const plan = planStack(input({ name: 's', slots: [
      { slot: 'chat', model: 'tiny', role: 'primary', capabilities: [{ child: 'embed', model: 'e' }] },
      { slot: 'util', model: 'tiny', role: 'primary', profile: 'rocm', device: 'cpu' },
      { slot: 'a-very-long-slot-name-of-30-chr', model: 'tiny', capabilities: [{ child: 'rerank', model: 'r' }] },
    ] }, { chat: file('chat', 8101), util: file('util', 8102) }, {}));
    expect(plan.changes.find((c) => c.slot === 'chat-embed')).toMatchObject({ action: 'create', capability: 'embed', parent: 'chat' });
    expect(plan.docs.get('chat-embed')).toMatchObject({ slot: { type: 'embedding', port: 8151 } });
    expect(plan.problems.map((p) => [p.slot, p.guard])).toEqual(expect.arrayContaining([['util', 'device_profile'], ['a-very-long-slot-name-of-30-chr-rerank', 'config'], ['chat', 'default_unique']]));
  });
});
