import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SlotEntry } from '../config/load.js';
import { RegistryFileSchema } from '../config/schema/registry.js';
import { SlotFileSchema } from '../config/schema/slot.js';
import { resolveSlotModel, slotModelId } from './model.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'tiny.gguf');
writeFileSync(file, 'x');

const entry = (slot: Record<string, unknown>, model: Record<string, unknown> = {}): SlotEntry => {
  const config = SlotFileSchema.parse({ slot: { name: 's', port: 8081, ...slot }, model });
  return { name: 's', file: 'slots/s.toml', config };
};
const registry = RegistryFileSchema.parse({ models: { tiny: { path: file, tags: ['chat'] }, gone: { path: join(dir, 'gone') } } });
const byId = { defaultModelId: () => 'kokoro' };

describe('resolveSlotModel for engines that load a file', () => {
  it('needs a registry entry (or [model].path) whose file exists', async () => {
    expect(await resolveSlotModel(entry({}, { default: 'tiny' }), registry)).toMatchObject({ id: 'tiny', path: file });
    await expect(resolveSlotModel(entry({}, {}), registry)).rejects.toThrow(/it has no model/);
    await expect(resolveSlotModel(entry({}, { default: 'kokoro' }), registry)).rejects.toThrow(/not in the registry/);
    await expect(resolveSlotModel(entry({}, { default: 'gone' }), registry)).rejects.toThrow(/is gone/);
  });
});

describe('resolveSlotModel for engines that name their model by id', () => {
  it('[model].default or the engine\'s default id, with no registry entry and no file', async () => {
    expect(await resolveSlotModel(entry({ type: 'tts', provider: 'kokoro' }), registry, undefined, byId)).toEqual({ id: 'kokoro', path: '', mmproj: null, tags: [], contextLength: null });
    expect(await resolveSlotModel(entry({ type: 'tts' }, { default: 'kokoro-v2' }), registry, undefined, byId)).toMatchObject({ id: 'kokoro-v2', path: '' });
    expect(await resolveSlotModel(entry({ type: 'tts' }, { default: 'kokoro-v2' }), registry, 'other', byId)).toMatchObject({ id: 'other' });
  });

  it('a registered id or [model].path passes its files; files that are gone are slot.model_missing', async () => {
    expect(await resolveSlotModel(entry({}, { default: 'tiny' }), registry, undefined, byId)).toMatchObject({ id: 'tiny', path: file, tags: ['chat'] });
    expect(await resolveSlotModel(entry({}, { path: file }), registry, undefined, byId)).toMatchObject({ id: 'kokoro', path: file });
    await expect(resolveSlotModel(entry({}, { default: 'gone' }), registry, undefined, byId)).rejects.toThrow(expect.objectContaining({ code: 'slot.model_missing' }));
  });

  it('no id anywhere: slot.model_missing saying to set [model].default', async () => {
    await expect(resolveSlotModel(entry({ provider: 'flm' }), registry, undefined, { defaultModelId: () => '' })).rejects.toThrow(/flm engine has no default model; set \[model\]\.default/);
  });

  it('slotModelId: the override, [model].default, the engine default, else empty', () => {
    expect(slotModelId(entry({}, { default: 'a' }), byId, 'b')).toBe('b');
    expect(slotModelId(entry({}, { default: 'a' }), byId)).toBe('a');
    expect(slotModelId(entry({}), byId)).toBe('kokoro');
    expect(slotModelId(entry({}), undefined)).toBe('');
  });

  it('slotModelId of a [model].path model is the id its run gets, before and during a start', async () => {
    const pathOnly = entry({}, { path: file });
    expect(slotModelId(pathOnly, undefined)).toBe('tiny');
    expect(slotModelId(pathOnly, undefined)).toBe((await resolveSlotModel(pathOnly, registry)).id);
  });
});
