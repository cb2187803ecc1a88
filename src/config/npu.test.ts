import { describe, expect, it } from 'vitest';
import { isNpuShadow, npuAnchorOf, npuExclusivityConflicts, shadowCapability, type NpuSlotFacts } from './npu.js';

const slot = (name: string, over: Partial<NpuSlotFacts> = {}): NpuSlotFacts => ({ name, device: 'npu', type: 'llm', enabled: true, ...over });

describe('NPU anchor and shadows', () => {
  it('the anchor is the enabled npu llm slot, first by name when files hold several', () => {
    expect(npuAnchorOf([slot('b'), slot('a', { enabled: false }), slot('c')])?.name).toBe('b');
    expect(npuAnchorOf([slot('gpu', { device: 'gpu-rocm' }), slot('emb', { type: 'embedding' })])).toBeUndefined();
  });

  it('npu embedding and transcription slots are shadows needing embed / asr; nothing else is', () => {
    expect(shadowCapability(slot('e', { type: 'embedding' }))).toBe('embed');
    expect(shadowCapability(slot('t', { type: 'transcription' }))).toBe('asr');
    expect(shadowCapability(slot('l'))).toBeNull();
    expect(shadowCapability(slot('e', { type: 'embedding', device: 'cpu' }))).toBeNull();
    expect(isNpuShadow(slot('r', { type: 'reranking' }))).toBe(false);
  });
});

describe('npuExclusivityConflicts', () => {
  it('names the other enabled npu llm slots when this one is one too', () => {
    const slots = [slot('npu'), slot('npu2'), slot('old', { enabled: false }), slot('emb', { type: 'embedding' }), slot('gpu', { device: 'gpu-vulkan' })];
    expect(npuExclusivityConflicts(slots, 'npu2')).toEqual(['npu']);
    expect(npuExclusivityConflicts(slots, 'npu')).toEqual(['npu2']);
  });

  it('has nothing to say about shadows, disabled slots, other devices or a lone anchor', () => {
    const slots = [slot('npu'), slot('old', { enabled: false }), slot('emb', { type: 'embedding' }), slot('gpu', { device: 'gpu-vulkan' })];
    for (const name of ['npu', 'old', 'emb', 'gpu', 'missing']) expect(npuExclusivityConflicts(slots, name)).toEqual([]);
  });
});
