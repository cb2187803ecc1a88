// The three built-in stacks (docs/configuration.md, "stacks.toml"). Immutable: a write
// to one is 409 stacks.seed_immutable; users export one, or snapshot, and change the copy.
// Every primary row also carries the embed and rerank children the originals ship with.
import { StackSchema, type Stack } from './schema/stacks.js';

const CHILDREN = [
  { child: 'embed', model: 'qwen3-embedding-0-6b-q8-0', device: 'gpu-rocm', provider: 'llama-server' },
  { child: 'rerank', model: 'bge-reranker-v2-m3-q4_k_m', device: 'gpu-rocm', provider: 'llama-server' },
];

export const SEED_STACKS: Readonly<Record<string, Stack>> = Object.freeze({
  saber: StackSchema.parse({
    name: 'saber', icon: '⚡', author: 'svc', description: 'An MoE agent with MTP on the ROCm GPU, a Gemma utility on Vulkan.',
    slots: [
      { slot: 'agent', model: 'qwen3-6-35b-a3b-nsc-ace-saber-mtp-f16-to-rocmfp4-strix-lean', device: 'gpu-rocm', profile: 'rocm-moe', mtp: true, capabilities: CHILDREN },
      { slot: 'utility', model: 'gemma-4-12b-it-ud-q4-k-xl', device: 'gpu-vulkan', profile: 'vulkan' },
    ],
  }),
  forge: StackSchema.parse({
    name: 'forge', icon: '🛠️', author: 'svc', description: 'Coder models with MTP: a 27B agent on ROCm, a 4B utility on Vulkan.',
    slots: [
      { slot: 'agent', model: 'qwopus3-6-27b-coder-mtp-q6-k', device: 'gpu-rocm', profile: 'rocm', mtp: true, capabilities: CHILDREN },
      { slot: 'utility', model: 'qwopus3-5-4b-coder-mtp-q6-k', device: 'gpu-vulkan', profile: 'vulkan', mtp: true },
    ],
  }),
  pi: StackSchema.parse({
    name: 'pi', icon: '🥧', author: 'svc', description: 'A pi-agent utility with MTP on ROCm, a Gemma agent on Vulkan.',
    slots: [
      { slot: 'utility', model: 'chadrock3-6-27b-pi-agent-mtp-rocmfp4-strix-lean', device: 'gpu-rocm', profile: 'rocm', mtp: true, capabilities: CHILDREN },
      { slot: 'agent', model: 'gemma-4-12b-it-ud-q4-k-xl', device: 'gpu-vulkan', profile: 'vulkan' },
    ],
  }),
});
