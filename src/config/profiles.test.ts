import { describe, expect, it } from 'vitest';
import { defaultProfileName, profileFitsDevice, profileServes, resolveProfile, SEED_PROFILES } from './profiles.js';
import { DEVICES, SLOT_TYPES } from './schema/common.js';
import { ProfileSchema } from './schema/profiles.js';

describe('seed profiles', () => {
  it('are the 12 the spec names, each valid against the profile schema', () => {
    expect(Object.keys(SEED_PROFILES).sort()).toEqual(['comfyui', 'cpu-llm', 'cuda', 'embed', 'flm', 'rerank', 'rocm', 'rocm-dnse', 'rocm-moe', 'tts', 'tts-qwen3', 'vulkan']);
    for (const [name, profile] of Object.entries(SEED_PROFILES)) expect(ProfileSchema.safeParse(profile).success, name).toBe(true);
    expect(Object.isFrozen(SEED_PROFILES)).toBe(true);
  });

  it('carry clean flag strings that the bundled llama-server accepts', () => {
    for (const [name, profile] of Object.entries(SEED_PROFILES)) {
      expect(profile.flags, name).toBe(profile.flags.trim().replace(/\s+/g, ' '));
      // This llama.cpp replaced --no-mmap with --load-mode; pinned thread counts oversubscribe small hosts.
      expect(profile.flags, name).not.toMatch(/--no-mmap|--threads(-batch)? \d/);
    }
  });

  it('follow the spec: MTP opt-ins, embed and rerank apart, device classes', () => {
    expect(Object.entries(SEED_PROFILES).filter(([, p]) => p.mtp).map(([n]) => n).sort()).toEqual(['rocm-dnse', 'rocm-moe']);
    expect(profileServes(SEED_PROFILES.embed!)).toEqual(['embedding']);
    expect(profileServes(SEED_PROFILES.rerank!)).toEqual(['reranking']);
    expect(SEED_PROFILES.embed!.flags).not.toMatch(/--reranking/);
    expect(SEED_PROFILES.tts!.device_class).toBe('cpu');
    expect(SEED_PROFILES['tts-qwen3']!.device_class).toBe('gpu');
    expect(SEED_PROFILES['cpu-llm']!.mtp).toBe(false);
    expect(SEED_PROFILES.comfyui!.device_class).toBe('img');
    expect(SEED_PROFILES.flm!.device_class).toBe('npu');
  });

  it('every device and type has a default profile that fits it', () => {
    for (const device of DEVICES) {
      for (const type of SLOT_TYPES) {
        const name = defaultProfileName(device, type);
        expect(SEED_PROFILES[name], `${device}/${type}`).toBeDefined();
      }
      expect(profileFitsDevice(SEED_PROFILES[defaultProfileName(device, 'llm')]!, device), device).toBe(true);
    }
    expect(defaultProfileName('gpu-rocm', 'llm')).toBe('rocm');
    expect(defaultProfileName('cpu', 'llm')).toBe('cpu-llm');
    expect(defaultProfileName('gpu-cuda', 'llm')).toBe('cuda');
  });
});

describe('resolveProfile', () => {
  const slot = { profile: null, device: 'gpu-rocm' as const, type: 'llm' as const };

  it("uses the slot's own profile first, including user profiles", () => {
    const mine = { ...SEED_PROFILES.rocm!, cloned_from: 'rocm', flags: '-fa off' };
    expect(resolveProfile({ ...slot, profile: 'mine' }, 'rocm-moe', { mine })).toMatchObject({ name: 'mine', source: 'slot' });
    expect(resolveProfile({ ...slot, profile: 'nope' }, null, {})).toEqual({ error: 'profile "nope" is neither a seed profile nor in profiles.toml' });
  });

  it("takes the model's preferred profile only when it fits the device and type", () => {
    expect(resolveProfile(slot, 'rocm-moe', {})).toMatchObject({ name: 'rocm-moe', source: 'model' });
    expect(resolveProfile({ ...slot, device: 'gpu-vulkan' }, 'rocm-moe', {})).toMatchObject({ name: 'vulkan', source: 'device-default' });
    expect(resolveProfile({ ...slot, type: 'embedding' }, 'rocm-moe', {})).toMatchObject({ name: 'embed', source: 'device-default' });
    expect(resolveProfile(slot, 'unknown', {})).toMatchObject({ name: 'rocm', source: 'device-default' });
  });
});
