import { describe, expect, it } from 'vitest';
import { applyCapabilityChanges, planCapabilitiesMigration } from './capabilities-migrate.js';
import { CapabilitiesFileSchema } from './schema/capabilities.js';
import { RegistryFileSchema } from './schema/registry.js';

const registry = RegistryFileSchema.parse({
  models: {
    bge: { path: '/m/bge.gguf', backends: ['llama-server', 'builtin'] },
    voice: { path: '/m/v.onnx', backends: ['kokoro'] },
    any: { path: '/m/any.gguf' },
  },
});
const doc = {
  capabilities: {
    rerank: { slot: 'rr', model: 'bge', provider: 'flm' },
    embed: { slot: 'em', model: 'gone', device: 'cpu' },
    tts: { slot: 'voice', provider: 'qwen3tts' },
    stt: { slot: 'stt', model: 'any', provider: 'moonshine' },
  },
};
const slotModel = (slot: string) => (slot === 'voice' ? 'voice' : null);

describe('capabilities migrate', () => {
  it('clears a selection whose model left the registry and snaps a provider to the model\'s first backend', () => {
    const changes = planCapabilitiesMigration(CapabilitiesFileSchema.parse(doc), registry, slotModel);
    expect(changes.map((c) => [c.capability, c.key, c.before, c.after])).toEqual([
      ['embed', 'model', 'gone', null],
      ['rerank', 'provider', 'flm', 'llama-server'],
      ['tts', 'provider', 'qwen3tts', 'kokoro'], // the slot's default model decides
    ]);
  });

  it('writes a valid file, keeps other keys, and a second run finds nothing', () => {
    const file = CapabilitiesFileSchema.parse(doc);
    const next = applyCapabilityChanges(doc, planCapabilitiesMigration(file, registry, slotModel));
    expect(next.capabilities).toMatchObject({ embed: { slot: 'em', device: 'cpu', enabled: false }, rerank: { provider: 'llama-server', model: 'bge' } });
    expect((next.capabilities as Record<string, Record<string, unknown>>).embed).not.toHaveProperty('model');
    const again = CapabilitiesFileSchema.parse(next);
    expect(planCapabilitiesMigration(again, registry, slotModel)).toEqual([]);
  });
});
