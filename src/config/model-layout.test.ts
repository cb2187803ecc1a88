import { describe, expect, it } from 'vitest';
import { classify, planModelLayout, type LinkState } from './model-layout.js';
import { RegistryFileSchema } from './schema/registry.js';

const registry = RegistryFileSchema.parse({
  models: {
    chat: { path: '/mnt/ai-models/llm/q.gguf', files: ['/mnt/ai-models/llm/q-00002-of-00002.gguf'] },
    emb: { path: '/mnt/ai-models/e.gguf', capabilities: ['embed'] },
    voice: { path: '/mnt/ai-models/kokoro/v.onnx', capabilities: ['tts'] },
    odd: { path: '/mnt/ai-models/x.bin' },
    hf: { path: '/mnt/ai-models/hub/models--org--r/snapshots/c/m.gguf' },
    elsewhere: { path: '/home/me/m.gguf' },
  },
});
const roots = { mount: '/mnt/ai-models', canonical: '/var/lib/svc/models' };

describe('migrate model-layout', () => {
  it('plans a link per file into <canonical>/<recipe>/<capability>, for models under the mount root only', () => {
    const steps = planModelLayout(registry, roots, false, () => ({ kind: 'missing' }));
    expect(steps.map((s) => [s.model, s.action, s.link])).toEqual([
      ['chat', 'create', '/var/lib/svc/models/llamacpp/chat/q.gguf'],
      ['chat', 'create', '/var/lib/svc/models/llamacpp/chat/q-00002-of-00002.gguf'],
      ['emb', 'create', '/var/lib/svc/models/llamacpp/embed/e.gguf'],
      ['hf', 'unclassified', null],
      ['odd', 'unclassified', null],
      ['voice', 'create', '/var/lib/svc/models/kokoro/tts/v.onnx'],
    ]);
  });

  it('skips a link already there, and replaces one pointing elsewhere only when forced; never a real file', () => {
    const state = (link: string): LinkState => (link.endsWith('q.gguf') ? { kind: 'link', target: '/mnt/ai-models/llm/q.gguf' } : link.endsWith('e.gguf') ? { kind: 'link', target: '/old/e.gguf' } : link.endsWith('v.onnx') ? { kind: 'other' } : { kind: 'missing' });
    const actions = (force: boolean) => planModelLayout(registry, roots, force, state).filter((s) => s.link).map((s) => [s.model, s.action]);
    expect(actions(false)).toEqual([['chat', 'skip-exists'], ['chat', 'create'], ['emb', 'would-overwrite'], ['voice', 'would-overwrite']]);
    expect(actions(true)).toEqual([['chat', 'skip-exists'], ['chat', 'create'], ['emb', 'overwrite'], ['voice', 'would-overwrite']]);
  });

  it('classifies by capability and file type', () => {
    expect(classify('/a/m.gguf', ['rerank'])).toEqual({ folder: 'llamacpp/rerank' });
    expect(classify('/a/w.bin', ['stt'])).toEqual({ folder: 'whispercpp/stt' });
    expect(classify('/a/w.bin', ['chat'])).toHaveProperty('reason');
  });
});
