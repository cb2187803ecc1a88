import { describe, expect, it } from 'vitest';
import { defaultThreads, FlagError, parseFlags } from './flags.js';

describe('parseFlags', () => {
  it('reads every flag in its short and long spelling, with a space or =', () => {
    const flags = parseFlags([
      '-m', '/m/a.gguf', '--host', '0.0.0.0', '--port=8123', '-c', '4096', '-t', '3', '-ngl', '12', '--alias', 'tiny,other',
      '--embedding', '--pooling', 'cls', '-np', '4', '--chat-template', 'chatml', '-dev', 'none',
    ]);
    expect(flags).toEqual({
      model: '/m/a.gguf', host: '0.0.0.0', port: 8123, ctxSize: 4096, threads: 3, gpuLayers: 12, alias: 'tiny',
      embedding: true, reranking: false, pooling: 'cls', parallel: 4, chatTemplate: 'chatml', chatTemplateFile: null, device: 'none',
    });
    const long = parseFlags(['--model=/m/b.gguf', '--ctx-size', '512', '--threads', '1', '--n-gpu-layers', 'all', '--parallel', '2', '--reranking']);
    expect(long).toMatchObject({ model: '/m/b.gguf', ctxSize: 512, threads: 1, gpuLayers: 'all', parallel: 2, reranking: true });
  });

  it('has llama-server-like defaults and a thread count of half the cores', () => {
    const flags = parseFlags(['-m', 'x.gguf']);
    expect(flags).toMatchObject({ host: '127.0.0.1', port: 8080, ctxSize: 0, gpuLayers: 'auto', parallel: 1, alias: null, device: 'auto' });
    expect(flags.threads).toBe(defaultThreads());
    expect([defaultThreads(1), defaultThreads(2), defaultThreads(3), defaultThreads(16)]).toEqual([1, 1, 1, 8]);
  });

  it('reads -1 the way llama-server does: automatic threads and parallel, all GPU layers', () => {
    const flags = parseFlags(['-m', 'x.gguf', '-t', '-1', '-np', '-1', '-ngl', '-1']);
    expect(flags).toMatchObject({ threads: defaultThreads(), parallel: 1, gpuLayers: 'all' });
  });

  it('names an unknown flag and lists what it accepts', () => {
    expect(() => parseFlags(['-m', 'x.gguf', '-fa', 'on'])).toThrow(FlagError);
    expect(() => parseFlags(['-m', 'x.gguf', '-fa', 'on'])).toThrow(/unknown flag "-fa".*--ctx-size/);
    expect(() => parseFlags(['-m', 'x.gguf', '--flash-attn=on'])).toThrow(/unknown flag "--flash-attn"/);
    expect(() => parseFlags(['-m', 'x.gguf', 'stray'])).toThrow(/unexpected argument "stray"/);
  });

  it('refuses bad values, a missing value, a missing model and contradictions', () => {
    expect(() => parseFlags(['-m', 'x', '-c', 'big'])).toThrow(/-c expects an integer >= 0; got "big"/);
    expect(() => parseFlags(['-m', 'x', '--port', '70000'])).toThrow(/--port expects a port number/);
    expect(() => parseFlags(['-m', 'x', '--pooling', 'max'])).toThrow(/--pooling expects one of none, mean, cls, last, rank/);
    expect(() => parseFlags(['-m', 'x', '--alias'])).toThrow(/--alias expects a value/);
    expect(() => parseFlags(['-m', 'x', '--embedding=yes'])).toThrow(/--embedding takes no value/);
    expect(() => parseFlags(['--port', '1'])).toThrow(/-m\/--model is required/);
    expect(() => parseFlags(['-m', 'x', '--embedding', '--reranking', '--pooling', 'mean'])).toThrow(/--reranking needs --pooling rank/);
    expect(() => parseFlags(['-m', 'x', '--chat-template', 'chatml', '--chat-template-file', '/t.jinja'])).toThrow(/not both/);
  });
});
