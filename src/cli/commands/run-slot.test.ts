import { describe, expect, it } from 'vitest';
import type { SlotViewPayload } from '../../protocol/slots.js';
import { SLOT_NAME_PATTERN } from '../../protocol/vocabulary.js';
import { contextFor, pickSlot, slotNameFor } from './run-slot.js';

describe('slotNameFor: a valid, unique slot name from a model id', () => {
  it('lowercases and turns every run of other characters into one "-"', () => {
    expect(slotNameFor('Qwen3-0.6B.Q8_0', new Set())).toBe('qwen3-0-6b-q8_0');
    expect(slotNameFor('hf.co/org/Model:Q4', new Set())).toBe('hf-co-org-model-q4');
  });

  it('keeps within 32 characters and starts and ends with a letter or digit', () => {
    const name = slotNameFor('--a-very-long-model-identifier-that-goes-on.gguf', new Set());
    expect(name).toMatch(SLOT_NAME_PATTERN);
    expect(name.length).toBeLessThanOrEqual(32);
    expect(name).toMatch(/^[a-z0-9].*[a-z0-9]$/);
  });

  it('an id with nothing usable becomes "model"', () => {
    expect(slotNameFor('...', new Set())).toBe('model');
  });

  it('a name in use gets -2, -3, ... and stays within 32 characters', () => {
    expect(slotNameFor('tiny', new Set(['tiny']))).toBe('tiny-2');
    expect(slotNameFor('tiny', new Set(['tiny', 'tiny-2']))).toBe('tiny-3');
    const long = 'x'.repeat(40);
    const name = slotNameFor(long, new Set(['x'.repeat(32)]));
    expect(name).toBe(`${'x'.repeat(30)}-2`);
    expect(name).toMatch(SLOT_NAME_PATTERN);
  });
});

const slot = (name: string, over: Partial<SlotViewPayload> = {}) => ({ name, type: 'llm', enabled: true, state: 'stopped', ...over }) as SlotViewPayload;

describe('pickSlot: a slot that already serves the model', () => {
  it('only enabled llm slots named in used_by', () => {
    const slots = [slot('embed', { type: 'embedding' }), slot('off', { enabled: false }), slot('other'), slot('chat')];
    expect(pickSlot(['embed', 'off', 'chat'], slots)?.name).toBe('chat');
    expect(pickSlot(['embed', 'off'], slots)).toBeUndefined();
    expect(pickSlot([], slots)).toBeUndefined();
  });

  it('a ready one first, else the first by name', () => {
    expect(pickSlot(['b', 'a'], [slot('b'), slot('a')])?.name).toBe('a');
    expect(pickSlot(['b', 'a'], [slot('a'), slot('b', { state: 'ready' })])?.name).toBe('b');
  });
});

describe('contextFor: the context size of a new slot', () => {
  const model = (context_length: number | null, context_size: number | null = null) => ({ context_length, defaults: { context_size, profile: null, n_gpu_layers: null, extra_args: null, chat_template: null } });
  it('4096, or the native context when it is smaller', () => {
    expect(contextFor(model(null))).toBe(4096);
    expect(contextFor(model(32768))).toBe(4096);
    expect(contextFor(model(2048))).toBe(2048);
  });
  it("the model's own default wins; never below 128", () => {
    expect(contextFor(model(2048, 8192))).toBe(8192);
    expect(contextFor(model(64))).toBe(128);
  });
});
