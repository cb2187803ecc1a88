import { describe, expect, it } from 'vitest';
import { MODEL_ID_PATTERN } from '../config/schema/registry.js';
import { deriveModelId, hasMtpMarker, isMmprojName, matchExtension, splitPartName, splitPartOf, uniqueId } from './names.js';

describe('deriveModelId', () => {
  it.each([
    ['/m/Qwen3-8B-Q4_K_M.gguf', '.gguf', 'qwen3-8b-q4_k_m'],
    ['/m/My Model (v2).gguf', '.gguf', 'my-model-v2'],
    ['/m/big-model-00001-of-00003.gguf', '.gguf', 'big-model'],
    ['/store/chat/qwen3-0.6b/model.gguf', '.gguf', 'qwen3-0.6b'],
    ['/m/__weird__.GGUF', '.gguf', 'weird'],
    ['/m/...gguf', '.gguf', 'model'],
    ['/m/ünïcode.safetensors', '.safetensors', 'n-code'],
  ])('%s -> %s', (path, ext, id) => {
    expect(deriveModelId(path, ext)).toBe(id);
    expect(id).toMatch(MODEL_ID_PATTERN);
  });

  it('keeps ids within 128 characters', () => {
    const id = deriveModelId(`/m/${'a'.repeat(300)}.gguf`, '.gguf');
    expect(id).toHaveLength(128);
    expect(id).toMatch(MODEL_ID_PATTERN);
  });
});

describe('file-name facts', () => {
  it('recognises mmproj sidecars in any case', () => {
    expect(isMmprojName('/m/mmproj-model-f16.gguf')).toBe(true);
    expect(isMmprojName('/m/Qwen2-VL-MMPROJ.gguf')).toBe(true);
    expect(isMmprojName('/mmproj/qwen.gguf')).toBe(false);
    expect(isMmprojName('/m/qwen.gguf')).toBe(false);
  });

  it('matches extensions case-insensitively, longest first, never the whole name', () => {
    expect(matchExtension('/m/a.GGUF', ['.gguf'])).toBe('.gguf');
    expect(matchExtension('/m/a.tar.gz', ['.gz', '.tar.gz'])).toBe('.tar.gz');
    expect(matchExtension('/m/a.bin', ['.gguf'])).toBeUndefined();
    expect(matchExtension('/m/.gguf', ['.gguf'])).toBeUndefined();
  });

  it('parses split-model part names', () => {
    expect(splitPartOf('/m/x-00002-of-00003.gguf')).toEqual({ prefix: 'x', part: 2, of: 3 });
    expect(splitPartOf('/m/x-00004-of-00003.gguf')).toBeUndefined();
    expect(splitPartOf('/m/x.gguf')).toBeUndefined();
    expect(splitPartName('/m/x-00001-of-00003.gguf', 3, 3)).toBe('x-00003-of-00003.gguf');
  });

  it('finds a delimited mtp marker only', () => {
    expect(hasMtpMarker('qwen3-mtp-q4.gguf')).toBe(true);
    expect(hasMtpMarker('GLM_MTP.gguf')).toBe(true);
    expect(hasMtpMarker('mtp')).toBe(true);
    expect(hasMtpMarker('smtp-relay.gguf')).toBe(false);
    expect(hasMtpMarker('mtpx.gguf')).toBe(false);
  });

  it('makes ids unique with -2, -3', () => {
    const taken = new Set(['a', 'a-2']);
    expect(uniqueId('a', (c) => taken.has(c))).toBe('a-3');
    expect(uniqueId('b', (c) => taken.has(c))).toBe('b');
  });
});
