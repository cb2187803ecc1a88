import { describe, expect, it } from 'vitest';
import { contextUsed, shownControls } from './field-use.js';
import { fileControls, fileValuesOf } from './file-fields.js';

const controls = fileControls();
const defaults = fileValuesOf(controls, null);
const shown = (type: string, device = '', provider = '', start = defaults) => shownControls(controls, { type, device, provider }, start).map((c) => c.path);

describe('the slot file keys a slot uses', () => {
  it('gives an llm slot its chat keys and no TTS, [image], [npu] or deprecated key', () => {
    const llm = shown('');
    expect(llm).toEqual(expect.arrayContaining(['slot.enable_thinking', 'slot.vision', 'slot.workers', 'slot.gpu_index', 'model.path', 'model.n_gpu_layers']));
    expect(llm.filter((path) => /^(npu|image)\.|default_(voice|speed|response_format)|rope_freq_base/.test(path))).toEqual([]);
    expect(contextUsed({ type: '', device: '', provider: '' })).toBe(true);
  });

  it('gives each type and device its own keys', () => {
    expect(shown('tts')).toEqual(expect.arrayContaining(['slot.default_voice', 'slot.default_speed', 'slot.default_response_format']));
    expect(shown('tts')).not.toContain('slot.enable_thinking');
    expect(contextUsed({ type: 'tts', device: '', provider: '' })).toBe(false);
    expect(shown('image').filter((path) => path.startsWith('image.'))).toEqual(['image.idle_restore_minutes', 'image.default_size', 'image.default_steps']);
    expect(shown('llm', 'npu')).toEqual(expect.arrayContaining(['npu.asr', 'npu.embed']));
    expect(shown('llm', 'npu')).not.toContain('model.n_gpu_layers');
    expect(shown('embedding', 'npu')).not.toContain('npu.embed');
    expect(shown('llm', 'cpu')).not.toContain('slot.gpu_index');
  });

  it('shows a key the file sets away from its default, used or not', () => {
    const file = fileValuesOf(controls, { slot: { default_voice: 'af_heart' }, model: { rope_freq_base: 10000 }, npu: { asr: false } });
    expect(shown('llm', 'cpu', '', file)).toEqual(expect.arrayContaining(['slot.default_voice', 'model.rope_freq_base']));
    expect(shown('llm', 'cpu', '', file)).not.toContain('npu.asr');
  });
});
