import { describe, expect, it } from 'vitest';
import { SEED_PROFILES } from '../../config/profiles.js';
import type { Profile } from '../../config/schema/profiles.js';
import { SlotFileSchema, type SlotFile } from '../../config/schema/slot.js';
import { SlotError } from '../../protocol/errors.js';
import { flagValue } from '../argv.js';
import type { ResolvedModel } from '../types.js';
import {
  buildLlamaArgv, chatTemplateArgs, CONTEXT_CAP, CONTEXT_FALLBACK, CONTEXT_FLOOR, draftDevice, isMtpCapable,
  mergeMtpBundle, MTP_BUNDLE, mtpEnabled, resolveContextSize, type LlamaArgvInput,
} from './argv.js';

const profile = (p: Partial<Profile> = {}): Profile => ({
  image: '', flags: '', mtp: false, device_class: 'gpu', backend: 'rocm', cloned_from: null, intent: '', quant: '', ...p,
});

type SlotInput = { slot?: Record<string, unknown>; model?: Record<string, unknown>; server?: Record<string, unknown> };
const config = (c: SlotInput = {}): SlotFile =>
  SlotFileSchema.parse({ slot: { name: 'chat', port: 8081, ...c.slot }, model: c.model ?? {}, server: c.server ?? {} });

const MODEL: ResolvedModel = { id: 'qwen3-4b', path: '/models/qwen3-4b.gguf', mmproj: null, tags: [], contextLength: null };

function argv(c: SlotInput = {}, over: Partial<LlamaArgvInput> = {}): string[] {
  return buildLlamaArgv({ config: config(c), model: MODEL, profile: profile(), nativeContext: 16384, host: '127.0.0.1', isFile: () => false, ...over });
}

describe('buildLlamaArgv: order and base flags', () => {
  it('puts profile flags first, then model, host/port, alias, context, layers', () => {
    const out = argv({}, { profile: profile({ flags: '-fa on --jinja' }) });
    expect(out).toEqual([
      '-fa', 'on', '--jinja',
      '--model', '/models/qwen3-4b.gguf', '--host', '127.0.0.1', '--port', '8081', '--alias', 'qwen3-4b',
      '--ctx-size', '16384', '-ngl', '999',
    ]);
  });

  it('uses the given host (0.0.0.0 in a container)', () => {
    expect(flagValue(argv({}, { host: '0.0.0.0' }), '--host')).toBe('0.0.0.0');
  });

  it('lets slot values override the profile (last wins), keeping the later position', () => {
    const out = argv({ model: { n_gpu_layers: 20 }, slot: { workers: 4 } }, { profile: profile({ flags: '-ngl 999 --parallel 1 --threads 8' }) });
    expect(out.slice(0, 2)).toEqual(['--threads', '8']);
    expect(flagValue(out, '-ngl')).toBe('20');
    expect(out.filter((t) => t === '--parallel' || t === '-ngl' || t === '--n-gpu-layers')).toEqual(['-ngl', '--parallel']);
    expect(flagValue(out, '--parallel')).toBe('4');
  });
});

describe('buildLlamaArgv: -ngl', () => {
  it('maps -1 to 999 (all layers) and passes other values through', () => {
    expect(flagValue(argv(), '-ngl')).toBe('999');
    expect(flagValue(argv({ model: { n_gpu_layers: 0 } }), '-ngl')).toBe('0');
    expect(flagValue(argv({ model: { n_gpu_layers: 12 } }), '-ngl')).toBe('12');
  });

  it('offloads nothing on a cpu slot, overriding a profile that says otherwise', () => {
    expect(flagValue(argv({ slot: { device: 'cpu' } }, { profile: profile({ flags: '-ngl 999' }) }), '-ngl')).toBe('0');
  });
});

describe('context size', () => {
  it('uses the slot value as given, even below the floor or above the cap', () => {
    expect(resolveContextSize(2048, 131072)).toBe(2048);
    expect(resolveContextSize(128, null)).toBe(128);
    expect(resolveContextSize(65536, 4096)).toBe(65536);
    expect(flagValue(argv({ model: { context_size: 1024 } }), '--ctx-size')).toBe('1024');
  });

  it('derives min(native, cap) with a floor, else the fallback, never 4096 by default', () => {
    expect(CONTEXT_CAP).toBe(32768);
    expect(CONTEXT_FLOOR).toBe(512);
    expect(CONTEXT_FALLBACK).toBe(8192);
    expect(resolveContextSize(null, 131072)).toBe(32768);
    expect(resolveContextSize(null, 16384)).toBe(16384);
    expect(resolveContextSize(null, 256)).toBe(512);
    expect(resolveContextSize(null, null)).toBe(8192);
    expect(resolveContextSize(null, 0)).toBe(8192);
    expect(flagValue(argv({}, { nativeContext: null }), '--ctx-size')).toBe('8192');
    expect(flagValue(argv({}, { nativeContext: 1_000_000 }), '--ctx-size')).toBe('32768');
  });
});

describe('[server].extra_args', () => {
  it('come last and override a long flag, a short flag and a flag with a value', () => {
    const out = argv({ server: { extra_args: '-c 512 --n-gpu-layers 3 --alias "my model"' } }, { profile: profile({ flags: '-fa on -ngl 999' }) });
    expect(flagValue(out, '--ctx-size')).toBe('512');
    expect(out).not.toContain('--ctx-size');
    expect(flagValue(out, '-ngl')).toBe('3');
    expect(out).not.toContain('-ngl');
    expect(flagValue(out, '--alias')).toBe('my model');
    expect(out.slice(-6)).toEqual(['-c', '512', '--n-gpu-layers', '3', '--alias', 'my model']);
  });

  it('override a profile flag and add new ones', () => {
    const out = argv({ server: { extra_args: '-fa off --no-webui' } }, { profile: profile({ flags: '-fa on --jinja' }) });
    expect(out[0]).toBe('--jinja');
    expect(flagValue(out, '-fa')).toBe('off');
    expect(out.at(-1)).toBe('--no-webui');
  });

  it('with unbalanced quotes are a slot.config_error', () => {
    expect(() => argv({ server: { extra_args: '--alias "x' } })).toThrow(SlotError);
  });
});

describe('normalisation', () => {
  it('leaves each flag once', () => {
    const out = argv({ slot: { type: 'embedding' } }, { profile: profile({ flags: '--embedding --pooling mean -ngl 999 --threads 4 -t 8' }) });
    const keys = out.filter((t) => t.startsWith('-'));
    expect(new Set(keys).size).toBe(keys.length);
    expect(out.filter((t) => t === '--embedding')).toHaveLength(1);
    expect(flagValue(out, '--threads')).toBe('8');
    expect(out).not.toContain('--threads');
  });
});

describe('type flags', () => {
  it('embedding slots get --embedding and --pooling mean', () => {
    const out = argv({ slot: { type: 'embedding' } });
    expect(out).toContain('--embedding');
    expect(flagValue(out, '--pooling')).toBe('mean');
  });

  it('keep a pooling the profile or extra_args already chose', () => {
    expect(flagValue(argv({ slot: { type: 'embedding' } }, { profile: profile({ flags: '--pooling cls' }) }), '--pooling')).toBe('cls');
    expect(flagValue(argv({ slot: { type: 'embedding' }, server: { extra_args: '--pooling last' } }), '--pooling')).toBe('last');
  });

  it('reranking slots get --reranking and no pooling; llm slots neither', () => {
    const rr = argv({ slot: { type: 'reranking' } });
    expect(rr).toContain('--reranking');
    expect(rr).not.toContain('--embedding');
    expect(rr).not.toContain('--pooling');
    const llm = argv();
    expect(llm).not.toContain('--embedding');
    expect(llm).not.toContain('--reranking');
  });

  it('--parallel only when workers > 1', () => {
    expect(argv()).not.toContain('--parallel');
    expect(flagValue(argv({ slot: { workers: 3 } }), '--parallel')).toBe('3');
  });
});

describe('vision and mmproj', () => {
  const withProj = { ...MODEL, mmproj: '/models/mmproj-qwen.gguf' };
  it('passes the projector when vision is on and a sidecar exists', () => {
    expect(flagValue(argv({}, { model: withProj }), '--mmproj')).toBe('/models/mmproj-qwen.gguf');
  });
  it('drops it when vision is off, and emits nothing without a sidecar', () => {
    expect(argv({ slot: { vision: false } }, { model: withProj })).not.toContain('--mmproj');
    expect(argv()).not.toContain('--mmproj');
  });
});

describe('chat template', () => {
  it('a built-in name becomes --chat-template', () => {
    expect(flagValue(argv({ slot: { chat_template: 'chatml' } }), '--chat-template')).toBe('chatml');
    expect(argv({ slot: { chat_template: 'chatml' } })).not.toContain('--chat-template-file');
  });

  it('an existing file becomes --chat-template-file', () => {
    const out = argv({ slot: { chat_template: '/tpl/qwen.jinja' } }, { isFile: (p) => p === '/tpl/qwen.jinja' });
    expect(flagValue(out, '--chat-template-file')).toBe('/tpl/qwen.jinja');
    expect(out).not.toContain('--chat-template');
  });

  it('a path that does not exist is a slot.config_error; "auto" and null emit nothing', () => {
    expect(() => chatTemplateArgs('/nope/x.jinja', () => false)).toThrow(/no such file/);
    expect(chatTemplateArgs('auto', () => true)).toEqual([]);
    expect(chatTemplateArgs(null, () => true)).toEqual([]);
    expect(argv().some((t) => t.startsWith('--chat-template'))).toBe(false);
  });
});

describe('MTP', () => {
  it('recognises capable models by tag or delimited marker only', () => {
    const m = (id: string, path = '/m/x.gguf', tags: string[] = []) => ({ id, path, tags });
    expect(isMtpCapable(m('x', '/m/x.gguf', ['MTP']))).toBe(true);
    expect(isMtpCapable(m('glm-4.5-mtp'))).toBe(true);
    expect(isMtpCapable(m('mtp-model'))).toBe(true);
    expect(isMtpCapable(m('x', '/m/Qwen3.MTP_Q4.gguf'))).toBe(true);
    expect(isMtpCapable(m('x', '/mtp-dir/x.gguf'))).toBe(false);
    expect(isMtpCapable(m('smtpserver'))).toBe(false);
    expect(isMtpCapable(m('mtpx'))).toBe(false);
  });

  it('tri-state: true on, false off, null = profile opt-in and capable model', () => {
    const capable = { id: 'a-mtp', path: '/m/a.gguf', tags: [] };
    const plain = { id: 'a', path: '/m/a.gguf', tags: [] };
    expect(mtpEnabled(true, { mtp: false }, plain)).toBe(true);
    expect(mtpEnabled(false, { mtp: true }, capable)).toBe(false);
    expect(mtpEnabled(null, { mtp: true }, capable)).toBe(true);
    expect(mtpEnabled(null, { mtp: true }, plain)).toBe(false);
    expect(mtpEnabled(null, { mtp: false }, capable)).toBe(false);
  });

  it('merges the bundle: flags the profile sets are dropped, the rest come first', () => {
    const merged = mergeMtpBundle(['--spec-draft-n-max', '8', '--threads', '4'], 'Vulkan0');
    expect(merged.slice(0, 4)).toEqual(['--spec-type', 'draft-mtp', '--spec-draft-device', 'Vulkan0']);
    expect(merged.filter((t) => t === '--spec-draft-n-max')).toHaveLength(1);
    expect(merged.slice(-4)).toEqual(['--spec-draft-n-max', '8', '--threads', '4']);
    expect(merged).toHaveLength(MTP_BUNDLE.length - 2 + 4);
  });

  it('picks the draft device by backend, then device', () => {
    expect(draftDevice('rocm', 'gpu-rocm')).toBe('ROCm0');
    expect(draftDevice('vulkan', 'gpu-rocm')).toBe('Vulkan0');
    expect(draftDevice('cuda', 'gpu-cuda')).toBe('CUDA0');
    expect(draftDevice(null, 'gpu-vulkan')).toBe('Vulkan0');
    expect(draftDevice(null, 'cpu')).toBe('ROCm0');
  });

  it('with a seed MTP profile and a capable model, the bundle leads the argv', () => {
    const out = argv({}, { profile: SEED_PROFILES['rocm-dnse']!, model: { ...MODEL, tags: ['mtp'] } });
    expect(out.slice(0, 2)).toEqual(['--spec-type', 'draft-mtp']);
    expect(flagValue(out, '--spec-draft-device')).toBe('ROCm0');
    expect(argv({ slot: { mtp: false } }, { profile: SEED_PROFILES['rocm-dnse']!, model: { ...MODEL, tags: ['mtp'] } })).not.toContain('--spec-type');
    expect(argv({}, { profile: SEED_PROFILES['rocm-dnse']! })).not.toContain('--spec-type');
    const forced = argv({ slot: { mtp: true, device: 'gpu-vulkan' } }, { profile: SEED_PROFILES.vulkan! });
    expect(flagValue(forced, '--spec-draft-device')).toBe('Vulkan0');
  });
});

describe('rope_freq_base', () => {
  it('is never emitted', () => {
    const out = argv({ model: { rope_freq_base: 1_000_000 } });
    expect(out.join(' ')).not.toMatch(/rope/);
    expect(out).not.toContain('1000000');
  });
});
