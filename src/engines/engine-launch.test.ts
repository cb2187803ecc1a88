import { describe, expect, it } from 'vitest';
import { SEED_PROFILES } from '../config/profiles.js';
import { engineImage, engineProfile } from './engine-launch.js';

const custom = { ...SEED_PROFILES.tts!, flags: '--model_path /mine', image: '' };

describe('engineProfile', () => {
  it('a profile the slot (or its model) chose applies as it is', () => {
    expect(engineProfile({ name: 'mine', profile: custom, source: 'slot' }, 'tts')).toBe(custom);
    expect(engineProfile({ name: 'mine', profile: custom, source: 'model' }, null)).toBe(custom);
  });

  it('a device default is replaced by the engine\'s own seed, or by none', () => {
    const cpuLlm = { name: 'cpu-llm', profile: SEED_PROFILES['cpu-llm']!, source: 'device-default' as const };
    expect(engineProfile(cpuLlm, null)).toBeNull(); // a moonshine slot on cpu gets no llama-server flags
    expect(engineProfile({ name: 'tts-qwen3', profile: SEED_PROFILES['tts-qwen3']!, source: 'device-default' }, 'tts')).toBe(SEED_PROFILES.tts);
    expect(engineProfile({ name: 'tts', profile: SEED_PROFILES.tts!, source: 'device-default' }, 'tts')).toBe(SEED_PROFILES.tts);
  });

  it('engineImage: a profile\'s image, even empty (run as a process), else the engine\'s own', () => {
    expect(engineImage(custom, 'fallback')).toBe('');
    expect(engineImage(null, 'fallback')).toBe('fallback');
  });
});
