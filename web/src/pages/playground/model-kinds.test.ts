import { describe, expect, it } from 'vitest';
import type { ModelList } from '../../../../src/protocol/v1-wire.js';
import { keepSelection, modelsByTool } from './model-kinds.js';

const list: ModelList = {
  object: 'list',
  data: [
    { id: 'chat', object: 'model', created: 1, owned_by: 'svc', name: 'chat · tiny', context_length: 512 },
    { id: 'tiny-embed', object: 'model', created: 1, owned_by: 'svc', name: 'embed · tiny-embed', slot: 'embed' },
    { id: 'tiny-rerank', object: 'model', created: 1, owned_by: 'svc', name: 'rerank · tiny-rerank', slot: 'rerank' },
    { id: 'kokoro', object: 'model', created: 1, owned_by: 'svc', name: 'voice · kokoro', slot: 'voice' },
    { id: 'or/claude', object: 'model', created: 1, owned_by: 'openrouter' },
    { id: 'svc/primary', object: 'model', created: 1, owned_by: 'svc', context_length: 512, _hal0: { virtual: true, kind: 'live-resolve', resolves_to: 'chat', device: 'cpu' } },
    { id: 'svc/embed', object: 'model', created: 1, owned_by: 'svc', context_length: 512, _hal0: { virtual: true, kind: 'live-resolve', resolves_to: 'embed', device: 'cpu' } },
    { id: 'svc/image', object: 'model', created: 1, owned_by: 'svc', context_length: null, _hal0: { virtual: true, kind: 'live-resolve', resolves_to: 'img', device: 'gpu-rocm' } },
  ],
};
const slotTypes = new Map([
  ['chat', 'llm'],
  ['embed', 'embedding'],
  ['rerank', 'reranking'],
  ['voice', 'tts'],
  ['img', 'image'],
]);

describe('modelsByTool', () => {
  it('offers each local model only to the tool its slot type serves, remote ids to all, apart', () => {
    const by = modelsByTool(list, slotTypes);
    const ids = (tool: keyof typeof by) => by[tool].map((o) => o.id);
    expect(ids('chat')).toEqual(['chat', 'svc/primary', 'or/claude']);
    expect(ids('embeddings')).toEqual(['tiny-embed', 'svc/embed', 'or/claude']);
    expect(ids('rerank')).toEqual(['tiny-rerank', 'or/claude']);
    expect(ids('speech')).toEqual(['kokoro', 'or/claude']);
    expect(ids('transcription')).toEqual(['or/claude']);
    expect(ids('image')).toEqual(['svc/image', 'or/claude']);
    expect(by.chat[0]).toEqual({ id: 'chat', label: 'chat · tiny', slot: 'chat', remote: false });
    expect(by.chat[1]).toEqual({ id: 'svc/primary', label: 'svc/primary → chat', slot: 'chat', remote: false });
    expect(by.chat[2]).toMatchObject({ slot: null, remote: true });
  });

  it('without the slot list a raw local id cannot be placed and counts as remote', () => {
    const by = modelsByTool(list, new Map());
    expect(by.rerank.find((o) => o.id === 'tiny-rerank')).toMatchObject({ remote: true, slot: null });
    expect(by.embeddings.map((o) => o.id)).toContain('svc/embed');
  });

  it('answers empty lists before the list arrived', () => {
    expect(modelsByTool(undefined, slotTypes).chat).toEqual([]);
  });
});

describe('keepSelection', () => {
  const options = [
    { id: 'a', label: 'a', slot: null, remote: false },
    { id: 'b', label: 'b', slot: null, remote: false },
  ];
  it('keeps a model still offered, else takes the first, else none', () => {
    expect(keepSelection('b', options)).toBe('b');
    expect(keepSelection('gone', options)).toBe('a');
    expect(keepSelection('', [])).toBe('');
  });
});
