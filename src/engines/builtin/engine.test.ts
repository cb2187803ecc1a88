// The pure parts of loading; loading itself runs in the integration tests (test/builtin*.test.ts).
import { describe, expect, it } from 'vitest';
import { builtinRuntime, engineMode, gpuChoice, gpuLayersOption, missingBuild } from './engine.js';
import { choiceSeed, tokenBudget } from './generate.js';

describe('engine options', () => {
  it('--device: none keeps to the CPU, a backend device picks that backend, else auto', () => {
    expect(gpuChoice('none')).toBe(false);
    expect(gpuChoice('auto')).toBe('auto');
    expect(gpuChoice('CUDA0')).toBe('cuda');
    expect(gpuChoice('Vulkan1')).toBe('vulkan');
    expect(() => gpuChoice('ROCm0')).toThrow(/--device "ROCm0" is not a device the built-in engine knows/);
  });

  it('says which package to install when a build is missing', () => {
    expect(missingBuild('cuda', 'linux', 'x64')).toBe("no cuda build of node-llama-cpp is installed: npm install @node-llama-cpp/linux-x64-cuda at node-llama-cpp's version (docs/builtin-engine.md, GPUs)");
    expect(missingBuild(false, 'linux', 'x64')).toMatch(/^no CPU build .* @node-llama-cpp\/linux-x64 /);
    expect(missingBuild('metal', 'darwin', 'arm64')).toMatch(/@node-llama-cpp\/mac-arm64-metal/);
  });

  it("-ngl: llama-server's 999 and 'all' are every layer", () => {
    expect(gpuLayersOption(999)).toBe('max');
    expect(gpuLayersOption('all')).toBe('max');
    expect(gpuLayersOption(12)).toBe(12);
    expect(gpuLayersOption('auto')).toBe('auto');
  });

  it('--reranking wins over --embedding; neither is chat', () => {
    expect(engineMode({ embedding: true, reranking: true })).toBe('reranking');
    expect(engineMode({ embedding: true, reranking: false })).toBe('embedding');
    expect(engineMode({ embedding: false, reranking: false })).toBe('chat');
  });
});

describe('generation limits', () => {
  it('a reply gets what was asked, at most the rest of the context; a prompt that does not fit is a 400', () => {
    expect(tokenBudget(null, 20, 512)).toBe(492);
    expect(tokenBudget(16, 20, 512)).toBe(16);
    expect(() => tokenBudget(16, 512, 512)).toThrow(/exceeds the available context size \(512 prompt tokens, 512 in the context\)/);
    const error = (() => {
      try {
        return tokenBudget(1, 600, 512);
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toMatchObject({ status: 400, code: 'request.context_exceeded', type: 'exceed_context_size_error', extra: { n_prompt_tokens: 600, n_ctx: 512 } });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      error: { code: 'request.context_exceeded', message: expect.stringContaining('600 prompt tokens'), details: { type: 'exceed_context_size_error', n_prompt_tokens: 600, n_ctx: 512 } },
    });
  });

  it('choice seeds: the seed plus the choice index, or random', () => {
    expect([choiceSeed(7, 0), choiceSeed(7, 2)]).toEqual([7, 9]);
    expect(choiceSeed(2 ** 32 - 1, 1)).toBe(0);
    const random = new Set(Array.from({ length: 8 }, () => choiceSeed(null, 0)));
    expect(random.size).toBeGreaterThan(1);
  });
});

describe('builtinRuntime (GET /v1/models meta.runtime)', () => {
  it('the CPU build, a GPU build that found no device, and no layer asked for all compute on the CPU', () => {
    expect(builtinRuntime(false, [], 0, 3)).toEqual({ backend: 'cpu', gpu_layers: { offloaded: 0, total: 3 } });
    expect(builtinRuntime('vulkan', [], 3, 3)).toEqual({ backend: 'cpu', gpu_layers: { offloaded: 0, total: 3 } });
    expect(builtinRuntime('cuda', ['NVIDIA H100'], 0, 33)).toEqual({ backend: 'cpu', gpu_layers: { offloaded: 0, total: 33 } });
  });

  it('a GPU build with a device: its backend and the layers on it', () => {
    expect(builtinRuntime('cuda', ['NVIDIA H100'], 33, 33)).toEqual({ backend: 'cuda', gpu_layers: { offloaded: 33, total: 33 } });
    expect(builtinRuntime('vulkan', ['AMD Radeon'], 10, 29)).toEqual({ backend: 'vulkan', gpu_layers: { offloaded: 10, total: 29 } });
  });
});
