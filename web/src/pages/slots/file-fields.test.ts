import { describe, expect, it } from 'vitest';
import { imageSection, modelSection, npuSection, serverSection, slotSection } from '../../../../src/protocol/slot-file.js';
import { fileControls, filePatchOf, fileProblem, fileValuesOf, valueOf, type FileControl } from './file-fields.js';

const controls = fileControls();
const control = (path: string): FileControl => {
  const found = controls.find((c) => c.path === path);
  if (!found) throw new Error(`no control for ${path}`);
  return found;
};

describe('slot file keys as form controls', () => {
  it('covers every key of the slot file that the form has no field for, with its kind, options, default and description', () => {
    const sections = { slot: slotSection, model: modelSection, server: serverSection, npu: npuSection, image: imageSection };
    const every = Object.entries(sections).flatMap(([section, object]) => Object.keys(object.shape).map((key) => `${section}.${key}`));
    const own = ['slot.name', 'slot.port', 'slot.type', 'slot.device', 'slot.provider', 'slot.profile', 'slot.enabled', 'model.default', 'model.context_size', 'server.extra_args', 'server.env'];
    expect(controls.map((c) => c.path).sort()).toEqual(every.filter((path) => !own.includes(path)).sort());
    expect(control('slot.idle_timeout_s')).toMatchObject({ kind: 'integer', defaultText: '' });
    expect(control('slot.idle_timeout_s').description).toContain('Idle seconds');
    expect(control('slot.workers')).toMatchObject({ kind: 'integer', defaultText: '1' });
    expect(control('slot.default_speed').kind).toBe('number');
    expect(control('slot.vision')).toMatchObject({ kind: 'boolean', options: ['true', 'false'], defaultText: 'true' });
    expect(control('slot.default_response_format')).toMatchObject({ kind: 'enum', defaultText: '' });
    expect(control('slot.default_response_format').options).toContain('wav');
    expect(control('image.default_size')).toMatchObject({ kind: 'text', defaultText: '1024x1024' });
    expect(control('slot.rpc_workers')).toMatchObject({ kind: 'list', defaultText: '' });
    expect(valueOf(control('slot.rpc_workers'), '10.0.0.2:8090, 10.0.0.3:8090')).toEqual(['10.0.0.2:8090', '10.0.0.3:8090']);
    expect(fileProblem(control('slot.rpc_workers'), 'http://x:1')).toMatch(/host:port/);
    expect(controls.filter((c) => c.hostFile).map((c) => c.path).sort()).toEqual(['model.path', 'slot.chat_template']);
  });

  it('reads typed text: empty removes the key, numbers and booleans as such, other text left for the schema to name', () => {
    expect(valueOf(control('slot.workers'), ' ')).toBeNull();
    expect(valueOf(control('slot.workers'), '4')).toBe(4);
    expect(valueOf(control('slot.default_speed'), '1.5')).toBe(1.5);
    expect(valueOf(control('slot.workers'), 'many')).toBe('many');
    expect(valueOf(control('slot.mtp'), 'false')).toBe(false);
    expect(fileProblem(control('slot.workers'), '0')).toMatch(/>=\s*1/);
    expect(fileProblem(control('slot.workers'), '1.5')).toMatch(/int/);
    expect(fileProblem(control('image.default_size'), 'big')).toContain('1024x1024');
    expect(fileProblem(control('slot.workers'), '')).toBeUndefined();
    expect(fileProblem(control('slot.load_timeout_s'), '30')).toBeUndefined();
  });

  it('sends only what changed, an emptied key as null', () => {
    const config = { slot: { workers: 2, idle_timeout_s: null, vision: true }, model: { n_gpu_layers: -1, path: null }, npu: { asr: false }, image: {}, server: {} };
    const before = fileValuesOf(controls, config);
    expect([before['slot.workers'], before['slot.idle_timeout_s'], before['slot.vision']]).toEqual(['2', '', 'true']);
    expect(filePatchOf(controls, before, before)).toBeUndefined();
    expect(filePatchOf(controls, before, { ...before, 'slot.idle_timeout_s': '900', 'slot.workers': '', 'npu.asr': 'true' })).toEqual({ slot: { idle_timeout_s: 900, workers: null }, npu: { asr: true } });
    // Creating: the defaults are the starting point, so only keys set away from them are sent.
    const defaults = fileValuesOf(controls, null);
    expect(defaults['slot.load_timeout_s']).toBe('600');
    expect(filePatchOf(controls, defaults, { ...defaults, 'slot.load_timeout_s': '120' })).toEqual({ slot: { load_timeout_s: 120 } });
  });
});
