// The 12 seed profiles (docs/configuration.md, "profiles.toml") and how a slot's
// profile is chosen. Seeds are immutable; a profiles.toml entry of the same name is a
// configuration error, so users clone under a new name instead.
import type { Profile } from './schema/profiles.js';
import type { Device, SlotType } from './schema/common.js';
import { own } from '../lib/own.js';

// The original's seeds pin --threads/--threads-batch for its 16-core target; on a smaller
// host that oversubscribes the CPU (measured: 6.9 s instead of 0.13 s to load the tiny model
// on 2 cores), so seeds leave thread counts to the engine, which uses the physical cores.
// The original's seeds pass --no-mmap; the llama.cpp svc builds and runs (node-llama-cpp's
// bundle) replaced that flag with --load-mode, and `none` is its equivalent.
const ROCM_IMAGE = 'ghcr.io/svc-ai/amd-strix-halo-toolboxes:rocm-7.2.4-rocmfp4-server';
const VULKAN_IMAGE = 'ghcr.io/svc-ai/amd-strix-halo-toolboxes:vulkan-radv-server';
const DENSE_FLAGS = '-fa on -ctk q8_0 -ctv q8_0 -b 8192 -ub 2048 --parallel 1 --load-mode none --poll 100 --poll-batch 1';

const seed = (p: Partial<Profile> & Pick<Profile, 'image' | 'flags' | 'device_class' | 'intent'>): Profile => ({
  mtp: false, backend: null, cloned_from: null, quant: '', ...p,
});

export const SEED_PROFILES: Readonly<Record<string, Profile>> = Object.freeze({
  rocm: seed({ image: ROCM_IMAGE, flags: '-ngl 999 -fa on -ctk q8_0 -ctv q8_0 -b 512 -ub 512 --parallel 1 --load-mode none --jinja', device_class: 'gpu', backend: 'rocm', intent: 'ROCm · MoE agents', quant: 'FP4' }),
  'rocm-dnse': seed({ image: ROCM_IMAGE, flags: `-ngl 999 ${DENSE_FLAGS}`, device_class: 'gpu', backend: 'rocm', mtp: true, intent: 'ROCm · dense + MTP · q8 KV', quant: 'FP4' }),
  'rocm-moe': seed({ image: ROCM_IMAGE, flags: `-ngl 999 ${DENSE_FLAGS} --jinja`, device_class: 'gpu', backend: 'rocm', mtp: true, intent: 'ROCm · MoE + MTP · q8 KV', quant: 'FP4' }),
  vulkan: seed({ image: VULKAN_IMAGE, flags: '-ngl 999 -fa on -b 512 -ub 512 --parallel 1 --load-mode none --jinja', device_class: 'gpu', backend: 'vulkan', intent: 'Vulkan · standard', quant: 'Q4_K_M' }),
  cuda: seed({ image: 'ghcr.io/ggml-org/llama.cpp:server-cuda', flags: '-ngl 999 -fa on -b 512 -ub 512 --parallel 1 --load-mode none --jinja', device_class: 'gpu', backend: 'cuda', intent: 'CUDA · experimental', quant: 'Q4_K_M' }),
  embed: seed({ image: ROCM_IMAGE, flags: '--embedding --pooling mean -ngl 999 -fa on -b 8192 -ub 8192 --load-mode none', device_class: 'gpu', backend: 'rocm', intent: 'Embeddings' }),
  rerank: seed({ image: ROCM_IMAGE, flags: '--reranking -ngl 999 -fa on -b 8192 -ub 8192 --load-mode none', device_class: 'gpu', backend: 'rocm', intent: 'Reranking' }),
  flm: seed({ image: 'ghcr.io/svc-ai/svc-toolbox-flm:0.9.44', flags: '', device_class: 'npu', intent: 'FLM · NPU', quant: 'W4ABF16' }),
  tts: seed({ image: 'ghcr.io/svc-ai/svc-toolbox-kokoro:v1', flags: '--model_path /mnt/ai-models/local/kokoro-v1/kokoro-onnx', device_class: 'cpu', intent: 'TTS · CPU' }),
  'tts-qwen3': seed({ image: 'ghcr.io/svc-ai/svc-toolbox-qwen3tts:v1', flags: '--model_path /mnt/ai-models/local/qwen3-tts/Qwen3-TTS-12Hz-1.7B-CustomVoice --default_voice Ryan --default_language Auto', device_class: 'gpu', backend: 'rocm', intent: 'TTS · GPU multilingual', quant: 'BF16' }),
  'cpu-llm': seed({ image: VULKAN_IMAGE, flags: '-b 256 -ub 256 --parallel 1 --load-mode none --jinja', device_class: 'cpu', intent: 'CPU chat (no MTP)', quant: 'Q4_K_M' }),
  comfyui: seed({ image: 'docker.io/kyuz0/amd-strix-halo-comfyui:latest', flags: '--disable-mmap --bf16-vae --cache-none', device_class: 'img', intent: 'ComfyUI image generation' }),
});

/** The slot types a profile serves; derived from its flags and class for user profiles. */
export function profileServes(profile: Profile): readonly SlotType[] {
  if (profile.device_class === 'img') return ['image'];
  if (/(^|\s)--embedding(\s|$)/.test(profile.flags)) return ['embedding'];
  if (/(^|\s)--reranking(\s|$)/.test(profile.flags)) return ['reranking'];
  if (/^TTS/.test(profile.intent)) return ['tts'];
  if (profile.device_class === 'npu') return ['llm', 'embedding', 'transcription'];
  return ['llm'];
}

/** Does a profile run on a device? GPU profiles need their own backend. */
export function profileFitsDevice(profile: Profile, device: Device): boolean {
  switch (device) {
    case 'gpu-rocm':
      return (profile.device_class === 'gpu' && profile.backend === 'rocm') || profile.device_class === 'img';
    case 'gpu-vulkan':
      return profile.device_class === 'gpu' && profile.backend === 'vulkan';
    case 'gpu-cuda':
      return profile.device_class === 'gpu' && profile.backend === 'cuda';
    case 'cpu':
      return profile.device_class === 'cpu';
    case 'npu':
      return profile.device_class === 'npu';
  }
}

/** The default profile for a device and slot type (the table below; docs/configuration.md, "profiles.toml"). */
export function defaultProfileName(device: Device, type: SlotType): string {
  if (type === 'image') return 'comfyui';
  if (device === 'npu') return 'flm';
  if (type === 'tts') return device === 'cpu' ? 'tts' : 'tts-qwen3';
  if (device === 'gpu-rocm' && type === 'embedding') return 'embed';
  if (device === 'gpu-rocm' && type === 'reranking') return 'rerank';
  return { 'gpu-rocm': 'rocm', 'gpu-vulkan': 'vulkan', 'gpu-cuda': 'cuda', cpu: 'cpu-llm' }[device];
}

export interface ProfileChoice {
  name: string;
  profile: Profile;
  source: 'slot' | 'model' | 'device-default';
}

/**
 * A slot's profile: its own `profile`, else the model's preferred one when it fits the
 * slot's device and type, else the device's default.
 */
export function resolveProfile(
  slot: { profile: string | null; device: Device; type: SlotType },
  modelPreferred: string | null | undefined,
  catalogue: Readonly<Record<string, Profile>>,
): ProfileChoice | { error: string } {
  const all = { ...catalogue, ...SEED_PROFILES };
  if (slot.profile) {
    const profile = own(all, slot.profile);
    return profile ? { name: slot.profile, profile, source: 'slot' } : { error: `profile "${slot.profile}" is neither a seed profile nor in profiles.toml` };
  }
  const preferred = modelPreferred ? own(all, modelPreferred) : undefined;
  if (preferred && profileFitsDevice(preferred, slot.device) && profileServes(preferred).includes(slot.type)) {
    return { name: modelPreferred!, profile: preferred, source: 'model' };
  }
  const name = defaultProfileName(slot.device, slot.type);
  return { name, profile: SEED_PROFILES[name]!, source: 'device-default' };
}
