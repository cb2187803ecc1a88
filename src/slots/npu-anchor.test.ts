import { describe, expect, it } from 'vitest';
import type { SlotEntry } from '../config/load.js';
import { SlotFileSchema } from '../config/schema/slot.js';
import { npuAnchorFor, requireNpuAnchor } from './npu-anchor.js';

const entry = (name: string, slot: Record<string, unknown>, npu: Record<string, unknown> = {}): SlotEntry => ({
  name,
  file: `slots/${name}.toml`,
  config: SlotFileSchema.parse({ slot: { name, port: 8081, ...slot }, npu }),
});

const embed = entry('embed', { type: 'embedding', device: 'npu', provider: 'flm' });
const anchor = entry('chat', { type: 'llm', device: 'npu', provider: 'flm' }, { embed: true });

describe('NPU anchors', () => {
  it('a shadow is served by the enabled NPU llm slot; other slots have no anchor', () => {
    expect(npuAnchorFor(embed, [embed, anchor])?.name).toBe('chat');
    expect(npuAnchorFor(anchor, [embed, anchor])).toBeUndefined();
    expect(requireNpuAnchor(embed, [embed, anchor]).name).toBe('chat');
  });

  it('no anchor, or one without the capability, is slot.config_error saying what to change', () => {
    expect(() => requireNpuAnchor(embed, [embed])).toThrow(expect.objectContaining({ code: 'slot.config_error', message: expect.stringMatching(/no enabled slot has device = "npu" and type = "llm"/) }));
    const without = entry('chat', { type: 'llm', device: 'npu', provider: 'flm' }, { embed: false });
    expect(() => requireNpuAnchor(embed, [embed, without])).toThrow(/set \[npu\]\.embed = true in slots\/chat\.toml/);
  });
});
