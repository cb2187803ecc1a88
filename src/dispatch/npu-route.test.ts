import { describe, expect, it } from 'vitest';
import { npuDirectRoute } from './npu-route.js';
import { resolveTarget } from './resolve.js';
import type { SlotCandidate, V1Route } from './types.js';

const slot = (name: string, over: Partial<SlotCandidate> = {}): SlotCandidate => ({
  name, type: 'llm', role: null, device: 'npu', enabled: true, state: 'stopped', modelId: `${name}-model`, contextLength: null,
  npu: { embed: false, asr: false }, ...over,
});
const anchor = (over: Partial<SlotCandidate> = {}) => slot('npu', { modelId: 'llama3.2:1b', npu: { embed: true, asr: true }, ...over });
const emb = slot('npu-embed', { type: 'embedding', modelId: 'embed-gemma:300m' });
const stt = slot('npu-stt', { type: 'transcription', modelId: 'whisper-v3:turbo' });

/** Resolve as the dispatcher does: the pure resolution, then the NPU direct route. */
const route = (model: string, r: V1Route, slots: SlotCandidate[]) => npuDirectRoute(resolveTarget(model, r, slots, []), r, slots);

describe('npuDirectRoute: embeddings', () => {
  it('goes straight to the loaded anchor, keeping the shadow\'s model id', () => {
    for (const model of ['npu-embed', 'embed-gemma:300m', 'svc/embed']) {
      expect(route(model, 'embeddings', [anchor({ state: 'ready' }), emb])).toEqual({ kind: 'slot', slot: 'npu', model: 'embed-gemma:300m', via: 'npu-direct' });
    }
  });

  it('is dispatched normally (to the shadow) when the anchor is not loaded or runs without embeddings', () => {
    for (const state of ['stopped', 'starting', 'warming', 'error'] as const) {
      expect(route('npu-embed', 'embeddings', [anchor({ state }), emb])).toMatchObject({ slot: 'npu-embed', via: 'slot-name' });
    }
    expect(route('npu-embed', 'embeddings', [anchor({ state: 'ready', npu: { embed: false, asr: true } }), emb])).toMatchObject({ slot: 'npu-embed' });
    expect(route('npu-embed', 'embeddings', [emb])).toMatchObject({ slot: 'npu-embed' });
    expect(route('npu-embed', 'embeddings', [anchor({ state: 'ready', enabled: false }), emb])).toMatchObject({ slot: 'npu-embed' });
  });

  it('leaves embedding slots on other devices alone', () => {
    const gpuEmb = slot('embed', { type: 'embedding', device: 'gpu-rocm' });
    expect(route('embed', 'embeddings', [anchor({ state: 'ready' }), gpuEmb])).toMatchObject({ slot: 'embed', via: 'slot-name' });
  });
});

describe('npuDirectRoute: transcriptions', () => {
  it('NPU transcription slots go straight to the anchor, loaded or not', () => {
    for (const state of ['stopped', 'ready'] as const) {
      expect(route('npu-stt', 'transcriptions', [anchor({ state }), stt])).toEqual({ kind: 'slot', slot: 'npu', model: 'whisper-v3:turbo', via: 'npu-direct' });
    }
  });

  it('unless the anchor runs without speech recognition, or there is none', () => {
    expect(route('npu-stt', 'transcriptions', [anchor({ npu: { embed: true, asr: false } }), stt])).toMatchObject({ slot: 'npu-stt' });
    expect(route('npu-stt', 'transcriptions', [stt])).toMatchObject({ slot: 'npu-stt' });
  });
});

describe('npuDirectRoute: everything else passes through', () => {
  it('chat to the anchor, wrong types, upstreams and misses are unchanged', () => {
    const slots = [anchor({ state: 'ready' }), emb, stt];
    expect(route('npu', 'chat', slots)).toMatchObject({ slot: 'npu', via: 'slot-name' });
    expect(route('npu-embed', 'transcriptions', slots)).toMatchObject({ kind: 'wrong_type' });
    expect(route('nothing', 'embeddings', slots)).toMatchObject({ kind: 'not_found' });
    const upstream = { kind: 'upstream' as const, upstream: 'remote', model: 'x' };
    expect(npuDirectRoute(upstream, 'embeddings', slots)).toBe(upstream);
  });
});
