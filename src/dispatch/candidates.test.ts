import { describe, expect, it } from 'vitest';
import type { ResolvedConfig } from '../config/load.js';
import { RegistryFileSchema } from '../config/schema/registry.js';
import { CapabilitiesFileSchema } from '../config/schema/capabilities.js';
import { SlotFileSchema } from '../config/schema/slot.js';
import { CONTEXT_CAP } from '../engines/llama-server/argv.js';
import type { SlotViewPayload } from '../protocol/slots.js';
import { lastStartFailed, slotCandidates } from './candidates.js';

function config(slots: Record<string, { slot?: Record<string, unknown>; model?: Record<string, unknown> }>, models: Record<string, number | null>, capabilities: Record<string, unknown> = {}): ResolvedConfig {
  return {
    capabilities: CapabilitiesFileSchema.parse({ capabilities }),
    slots: Object.entries(slots).map(([name, s], i) => ({
      name,
      file: `slots/${name}.toml`,
      config: SlotFileSchema.parse({ slot: { name, port: 8081 + i, ...s.slot }, model: s.model ?? {} }),
    })),
    registry: RegistryFileSchema.parse({ models: Object.fromEntries(Object.entries(models).map(([id, ctx]) => [id, { path: `/m/${id}.gguf`, metadata: { context_length: ctx } }])) }),
  } as unknown as ResolvedConfig;
}

function view(name: string, over: Partial<SlotViewPayload> = {}): SlotViewPayload {
  return {
    name, state: 'stopped', type: 'llm', device: 'cpu', provider: 'llama-server', profile: null, port: 8081, enabled: true, model: 'tiny',
    pid: null, base_url: null, in_flight: 0, last_used_at: null, started_at: null, idle_timeout_s: 300, restarts: 0, memory_mb: null, backend: null, gpu_layers: null, warnings: [], last_error: null,
    ...over,
  };
}

describe('slotCandidates', () => {
  const cfg = config({
    chat: { slot: { role: 'primary' }, model: { default: 'tiny', context_size: 4096 } },
    big: { model: { default: 'big' } },
    huge: { model: { default: 'huge' } },
    other: { slot: { provider: 'moonshine', type: 'transcription' }, model: { default: 'huge' } },
    unknown: { model: { default: 'nowhere' } },
  }, { tiny: 2048, big: 16_384, huge: 131_072, nowhere: null });

  it('joins config (role, context) and views (state, model, device, enabled), in view order', () => {
    const out = slotCandidates(cfg, [
      view('unknown', { model: 'nowhere' }),
      view('chat', { state: 'ready', device: 'gpu-rocm' }),
      view('big', { model: 'big', enabled: false, state: 'disabled' }),
      view('huge', { model: 'huge' }),
      view('other', { model: 'huge', type: 'transcription', provider: 'moonshine' }),
    ]);
    expect(out.map((c) => c.name)).toEqual(['unknown', 'chat', 'big', 'huge', 'other']);
    expect(out[1]).toEqual({ name: 'chat', type: 'llm', role: 'primary', device: 'gpu-rocm', enabled: true, state: 'ready', modelId: 'tiny', contextLength: 4096, npu: { embed: false, asr: false } });
    expect(out[0]).toMatchObject({ role: null, contextLength: null });
    expect(out[2]).toMatchObject({ enabled: false, state: 'disabled', contextLength: 16_384 });
    // llama-server caps a native window; other engines run it as it is.
    expect(out[3]!.contextLength).toBe(CONTEXT_CAP);
    expect(out[4]).toMatchObject({ type: 'transcription', contextLength: 131_072 });
  });

  it('the running model decides the context, not the configured default', () => {
    const [c] = slotCandidates(cfg, [view('big', { model: 'tiny', state: 'ready' })]);
    expect(c).toMatchObject({ modelId: 'tiny', contextLength: 2048 });
  });

  it('a stopped slot whose last start failed for a reason of its own is marked failed; a passing refusal is not', () => {
    const failure = (code: string) => ({ code, message: 'it failed', at: '2026-01-01T00:00:00.000Z' });
    const out = slotCandidates(cfg, [
      view('chat', { last_error: failure('slot.load_failed') }),
      view('big', { model: 'big', last_error: failure('slot.binary_missing') }),
      view('huge', { model: 'huge', last_error: failure('slot.capacity') }),
      view('other', { state: 'ready', last_error: null }),
    ]);
    expect(out.map((c) => [c.name, c.failed ?? false])).toEqual([['chat', true], ['big', true], ['huge', false], ['other', false]]);
    // The refusals that say nothing about the slot: a full host, a busy GPU, a crash loop, a disabled slot.
    for (const code of ['slot.capacity', 'slot.memory_pressure', 'slot.not_ready', 'slot.disabled', 'gpu.image_mode', 'gpu.inference_mode']) {
      expect(lastStartFailed({ state: 'stopped', last_error: failure(code) }), code).toBe(false);
    }
    for (const code of ['slot.binary_missing', 'slot.model_missing', 'slot.config_error', 'slot.spawn_failed', 'slot.port_in_use']) {
      expect(lastStartFailed({ state: 'stopped', last_error: failure(code) }), code).toBe(true);
    }
    expect(lastStartFailed({ state: 'ready', last_error: null })).toBe(false);
  });

  it('a view whose slot file is gone is left out', () => {
    expect(slotCandidates(cfg, [view('ghost')])).toEqual([]);
  });

  it('carries the capabilities capabilities.toml selects the slot for, enabled ones only', () => {
    const withCaps = config({ a: {}, b: {} }, {}, { embed: { slot: 'a' }, rerank: { slot: 'a', enabled: false }, tts: { slot: 'b' } });
    expect(slotCandidates(withCaps, [view('a'), view('b')]).map((c) => [c.name, c.capabilities])).toEqual([['a', ['embed']], ['b', ['tts']]]);
  });
});
