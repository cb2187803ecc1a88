import { describe, expect, it } from 'vitest';
import { nearMatches } from '../protocol/near-matches.js';
import { resolveTarget, resolveVirtual, VIRTUAL_NAMES } from './resolve.js';
import type { SlotCandidate, UpstreamCatalog, V1Route } from './types.js';

const slot = (name: string, over: Partial<SlotCandidate> = {}): SlotCandidate => ({
  name, type: 'llm', role: null, device: 'gpu-vulkan', enabled: true, state: 'ready',
  modelId: `${name}-model`, contextLength: 4096, ...over,
});
const off = (name: string, over: Partial<SlotCandidate> = {}): SlotCandidate =>
  slot(name, { enabled: false, state: 'disabled', ...over });

const resolve = (model: string, slots: SlotCandidate[], route: V1Route = 'chat', upstreams: UpstreamCatalog[] = []) =>
  resolveTarget(model, route, slots, upstreams);
/** The slot chosen, or the whole resolution when it is not a slot. */
const chosen = (model: string, slots: SlotCandidate[], route: V1Route = 'chat') => {
  const r = resolve(model, slots, route);
  return r.kind === 'slot' ? r.slot : r;
};

describe('resolveTarget: 1. slot name', () => {
  it('matches a slot name exactly and rewrites model to the backing model id', () => {
    expect(resolve('chat', [slot('chat', { modelId: 'qwen3-8b' })])).toEqual({ kind: 'slot', slot: 'chat', model: 'qwen3-8b', via: 'slot-name' });
  });

  it('is case-sensitive', () => {
    expect(resolve('Chat', [slot('chat')]).kind).toBe('not_found');
  });

  it('wins over a role, a model id and an upstream with the same id', () => {
    const slots = [slot('utility', { modelId: 'u-model' }), slot('other', { role: 'utility', modelId: 'utility' })];
    expect(resolve('utility', slots, 'chat', [{ name: 'remote', modelIds: ['utility'] }])).toMatchObject({ slot: 'utility', via: 'slot-name' });
  });

  it('matches a slot in any state, error included (the name is explicit)', () => {
    expect(resolve('broken', [slot('broken', { state: 'error' }), slot('fine')])).toMatchObject({ kind: 'slot', slot: 'broken' });
  });

  it('never matches a disabled slot; the name falls through to later steps, and only then says disabled', () => {
    expect(resolve('old', [off('old')])).toEqual({ kind: 'disabled', slot: 'old' });
    expect(resolve('old', [off('old'), slot('b', { modelId: 'old' })])).toMatchObject({ slot: 'b', via: 'model-id' });
    expect(resolve('old', [off('old')], 'chat', [{ name: 'remote', modelIds: ['old'] }])).toEqual({ kind: 'upstream', upstream: 'remote', model: 'old' });
    expect(resolve('old', [slot('old', { enabled: false })])).toEqual({ kind: 'disabled', slot: 'old' });
  });

  it('wrong type: an llm slot on the embeddings route', () => {
    expect(resolve('chat', [slot('chat')], 'embeddings')).toEqual({
      kind: 'wrong_type', slot: 'chat', slotType: 'llm', route: 'embeddings', accepts: ['embedding'],
    });
  });

  it('accepts the route each slot type serves', () => {
    const cases: [V1Route, SlotCandidate['type']][] = [
      ['chat', 'llm'], ['completions', 'llm'], ['embeddings', 'embedding'], ['rerank', 'reranking'],
      ['transcriptions', 'transcription'], ['speech', 'tts'], ['images', 'image'],
    ];
    for (const [route, type] of cases) expect(resolve('s', [slot('s', { type })], route).kind).toBe('slot');
  });
});

describe('resolveTarget: 2. slot role', () => {
  it('matches an explicit role and rewrites to the model id', () => {
    expect(resolve('utility', [slot('small', { role: 'utility', modelId: 'qwen3-0.6b' })])).toEqual({ kind: 'slot', slot: 'small', model: 'qwen3-0.6b', via: 'role' });
  });

  it('prefers ready, then warming/starting, then stopped, then error; ties by name', () => {
    const r = (name: string, state: SlotCandidate['state']) => slot(name, { role: 'primary', state });
    expect(chosen('primary', [r('a', 'stopped'), r('b', 'ready'), r('c', 'warming')])).toBe('b');
    expect(chosen('primary', [r('a', 'stopped'), r('c', 'warming')])).toBe('c');
    expect(chosen('primary', [r('a', 'stopped'), r('c', 'starting')])).toBe('c');
    expect(chosen('primary', [r('a', 'error'), r('b', 'stopped')])).toBe('b');
    expect(chosen('primary', [r('a', 'error'), r('b', 'stopping')])).toBe('b');
    expect(chosen('primary', [r('b', 'stopped'), r('a', 'stopped')])).toBe('a');
    expect(chosen('primary', [r('z', 'error')])).toBe('z');
  });

  it('ignores disabled slots with the role', () => {
    expect(chosen('primary', [off('a', { role: 'primary' }), slot('b', { role: 'primary', state: 'error' })])).toBe('b');
  });

  it('is a role match, not a name match: a null role adds nothing beyond step 1', () => {
    expect(resolve('primary', [slot('x', { modelId: 'm' })]).kind).toBe('not_found');
  });

  it('checks the type of the chosen slot', () => {
    expect(resolve('npu', [slot('n', { role: 'npu' })], 'embeddings')).toMatchObject({ kind: 'wrong_type', slot: 'n' });
  });
});

describe('resolveTarget: 3. virtual svc/* names', () => {
  it('svc/primary: role primary, then the slot named primary, then the best llm slot by name', () => {
    const roled = slot('big', { role: 'primary' });
    const named = slot('primary');
    const plain = [slot('b'), slot('a')];
    expect(resolve('svc/primary', [named, roled, ...plain])).toMatchObject({ slot: 'big', via: 'virtual', model: 'big-model' });
    expect(chosen('svc/primary', [named, ...plain])).toBe('primary');
    expect(chosen('svc/primary', plain)).toBe('a');
    expect(chosen('svc/primary', [slot('a', { state: 'stopped' }), slot('b')])).toBe('b');
  });

  it('svc/primary only considers llm slots', () => {
    expect(chosen('svc/primary', [slot('a', { type: 'embedding', role: 'primary' }), slot('z')])).toBe('z');
    expect(resolve('svc/primary', [slot('e', { type: 'embedding' })], 'embeddings').kind).toBe('not_found');
  });

  it('svc/utility: role utility, then the primary chain', () => {
    expect(chosen('svc/utility', [slot('p', { role: 'primary' }), slot('u', { role: 'utility' })])).toBe('u');
    expect(chosen('svc/utility', [slot('p', { role: 'primary' }), slot('utility')])).toBe('utility');
    expect(chosen('svc/utility', [slot('p', { role: 'primary' }), slot('x')])).toBe('p');
  });

  it('svc/npu: device npu or role npu, then utility, then primary', () => {
    const primary = slot('p', { role: 'primary' });
    const utility = slot('u', { role: 'utility' });
    expect(chosen('svc/npu', [primary, utility, slot('n', { device: 'npu' })])).toBe('n');
    expect(chosen('svc/npu', [primary, utility, slot('r', { role: 'npu' })])).toBe('r');
    expect(chosen('svc/npu', [primary, utility, slot('e', { device: 'npu', type: 'embedding' })])).toBe('u');
    expect(chosen('svc/npu', [primary])).toBe('p');
  });

  it('within a step: ready, then startable; an error slot is passed over for a later step', () => {
    expect(chosen('svc/utility', [slot('u1', { role: 'utility', state: 'stopped' }), slot('u2', { role: 'utility', state: 'warming' })])).toBe('u2');
    expect(chosen('svc/utility', [slot('u', { role: 'utility', state: 'stopped' }), slot('p', { role: 'primary' })])).toBe('u');
    expect(chosen('svc/utility', [slot('u', { role: 'utility', state: 'error' }), slot('p', { role: 'primary', state: 'stopped' })])).toBe('p');
    expect(chosen('svc/utility', [slot('u', { role: 'utility', state: 'error' }), slot('p', { role: 'primary', state: 'error' })])).toBe('u');
  });

  it('svc/embed, svc/rerank, svc/stt, svc/tts, svc/image pick a slot of their type', () => {
    const slots = [
      slot('chat'), slot('emb', { type: 'embedding' }), slot('rr', { type: 'reranking' }),
      slot('whisper', { type: 'transcription' }), slot('kokoro', { type: 'tts' }), slot('comfy', { type: 'image' }),
    ];
    expect(resolve('svc/embed', slots, 'embeddings')).toEqual({ kind: 'slot', slot: 'emb', model: 'emb-model', via: 'virtual' });
    expect(chosen('svc/rerank', slots, 'rerank')).toBe('rr');
    expect(chosen('svc/stt', slots, 'transcriptions')).toBe('whisper');
    expect(chosen('svc/tts', slots, 'speech')).toBe('kokoro');
    expect(chosen('svc/image', slots, 'images')).toBe('comfy');
  });

  it('a typed virtual name prefers ready over error and skips disabled slots', () => {
    const slots = [slot('a', { type: 'embedding', state: 'error' }), slot('b', { type: 'embedding', state: 'stopped' }), off('c', { type: 'embedding' })];
    expect(chosen('svc/embed', slots, 'embeddings')).toBe('b');
  });

  it('a typed virtual name takes the slot capabilities.toml selects, when it is of the type', () => {
    const slots = [slot('a', { type: 'embedding' }), slot('b', { type: 'embedding', capabilities: ['embed'] }), slot('c', { type: 'reranking', capabilities: ['embed'] })];
    expect(chosen('svc/embed', slots, 'embeddings')).toBe('b');
    expect(chosen('svc/embed', [slots[0]!, slots[2]!], 'embeddings')).toBe('a');
    expect(chosen('svc/embed', [slots[0]!, slot('b', { type: 'embedding', capabilities: ['embed'], state: 'error' })], 'embeddings')).toBe('a');
  });

  it('svc/<slot name> is that slot', () => {
    expect(resolve('svc/chat', [slot('chat', { modelId: 'q' }), slot('a')])).toEqual({ kind: 'slot', slot: 'chat', model: 'q', via: 'virtual' });
    expect(resolve('svc/old', [off('old')])).toEqual({ kind: 'disabled', slot: 'old' });
  });

  it('fixed virtual names win over svc/<slot name>', () => {
    expect(chosen('svc/embed', [slot('embed'), slot('e', { type: 'embedding' })], 'embeddings')).toBe('e');
  });

  it('wrong type: svc/embed on the chat route', () => {
    expect(resolve('svc/embed', [slot('e', { type: 'embedding' })], 'chat')).toMatchObject({ kind: 'wrong_type', slot: 'e', slotType: 'embedding', accepts: ['llm'] });
  });

  it('is case-sensitive, and an unresolved virtual name falls through to upstreams', () => {
    expect(resolve('SVC/primary', [slot('a')]).kind).toBe('not_found');
    expect(resolve('svc/tts', [slot('a')], 'speech', [{ name: 'other-svc', modelIds: ['svc/tts'] }])).toEqual({ kind: 'upstream', upstream: 'other-svc', model: 'svc/tts' });
  });

  it('resolveVirtual and VIRTUAL_NAMES', () => {
    expect(VIRTUAL_NAMES).toEqual(['svc/primary', 'svc/utility', 'svc/npu', 'svc/embed', 'svc/rerank', 'svc/stt', 'svc/tts', 'svc/image']);
    expect(resolveVirtual('svc/primary', [slot('a')])?.name).toBe('a');
    expect(resolveVirtual('svc/image', [slot('a')])).toBeNull();
    expect(resolveVirtual('primary', [slot('primary')])).toBeNull();
  });
});

describe('resolveTarget: 4. model id served by a slot', () => {
  it('rewrites nothing (the id is already the model) and reports via model-id', () => {
    expect(resolve('qwen3-8b', [slot('chat', { modelId: 'qwen3-8b' })])).toEqual({ kind: 'slot', slot: 'chat', model: 'qwen3-8b', via: 'model-id' });
  });

  it('prefers ready over starting/warming over stopped; never error when another serves it', () => {
    const m = (name: string, state: SlotCandidate['state']) => slot(name, { modelId: 'm', state });
    expect(chosen('m', [m('a', 'stopped'), m('b', 'warming'), m('c', 'ready')])).toBe('c');
    expect(chosen('m', [m('a', 'stopped'), m('b', 'starting')])).toBe('b');
    expect(chosen('m', [m('a', 'error'), m('b', 'stopped')])).toBe('b');
    expect(chosen('m', [m('b', 'ready'), m('a', 'ready')])).toBe('a');
    expect(chosen('m', [m('a', 'error')])).toBe('a');
    expect(chosen('m', [off('a', { modelId: 'm' }), m('b', 'error')])).toBe('b');
  });

  it('a slot whose last start failed loses to one that can start, as a slot in error does', () => {
    const m = (name: string, over: Partial<SlotCandidate>) => slot(name, { modelId: 'm', ...over });
    expect(chosen('m', [m('a', { state: 'stopped', failed: true }), m('b', { state: 'stopped' })])).toBe('b');
    expect(chosen('m', [m('a', { state: 'stopped', failed: true }), m('b', { state: 'stopping' })])).toBe('b');
    expect(chosen('m', [m('a', { state: 'stopped', failed: true })])).toBe('a'); // nothing else: it is tried again
    expect(chosen('m', [m('a', { state: 'stopped', failed: true }), m('b', { state: 'error' })])).toBe('a'); // both failed: by name
    // A chain step whose only slot failed is passed over, as for one in error.
    expect(chosen('svc/utility', [slot('u', { role: 'utility', state: 'stopped', failed: true }), slot('p', { role: 'primary', state: 'stopped' })])).toBe('p');
    expect(chosen('primary', [slot('a', { role: 'primary', state: 'stopped', failed: true }), slot('b', { role: 'primary', state: 'stopped' })])).toBe('b');
  });

  it('the model id of a disabled slot that nothing else serves is refused as disabled', () => {
    expect(resolve('hidden', [off('secret', { modelId: 'hidden' }), slot('chat')])).toEqual({ kind: 'disabled', slot: 'secret' });
  });

  it('among several, only slots whose type fits the route compete', () => {
    const slots = [slot('chat', { modelId: 'bge' }), slot('emb', { modelId: 'bge', type: 'embedding', state: 'stopped' })];
    expect(chosen('bge', slots, 'embeddings')).toBe('emb');
    expect(chosen('bge', slots, 'chat')).toBe('chat');
  });

  it('wrong type when no slot serving the id fits the route', () => {
    expect(resolve('bge', [slot('emb', { modelId: 'bge', type: 'embedding' })], 'chat')).toEqual({
      kind: 'wrong_type', slot: 'emb', slotType: 'embedding', route: 'chat', accepts: ['llm'],
    });
  });

  it('is case-sensitive', () => {
    expect(resolve('Qwen3-8B', [slot('chat', { modelId: 'qwen3-8b' })]).kind).toBe('not_found');
  });
});

describe('resolveTarget: 5. remote upstreams', () => {
  const upstreams = [{ name: 'lan', modelIds: ['gpt-oss-20b', 'shared'] }, { name: 'cloud', modelIds: ['shared', 'gpt-4o'] }];

  it('routes a model a remote upstream serves, unchanged', () => {
    expect(resolve('gpt-4o', [slot('a')], 'chat', upstreams)).toEqual({ kind: 'upstream', upstream: 'cloud', model: 'gpt-4o' });
  });

  it('takes the first upstream in the given order', () => {
    expect(resolve('shared', [], 'chat', upstreams)).toEqual({ kind: 'upstream', upstream: 'lan', model: 'shared' });
  });

  it('local slots come first', () => {
    expect(chosen('shared', [slot('local', { modelId: 'shared' })])).toBe('local');
    expect(resolve('shared', [slot('local', { modelId: 'shared' })], 'chat', upstreams)).toMatchObject({ kind: 'slot', slot: 'local' });
  });

  it('is case-sensitive and ignores the route', () => {
    expect(resolve('GPT-4o', [], 'chat', upstreams).kind).toBe('not_found');
    expect(resolve('gpt-4o', [], 'embeddings', upstreams)).toMatchObject({ kind: 'upstream' });
  });
});

describe('resolveTarget: 6. not found', () => {
  const slots = [
    slot('chat', { modelId: 'qwen3-8b-instruct', role: 'primary' }), slot('small', { modelId: 'qwen3-0.6b' }),
    slot('emb', { type: 'embedding', modelId: 'bge-small' }), off('secret', { modelId: 'hidden-model' }),
  ];
  const upstreams = [{ name: 'cloud', modelIds: ['gpt-4o', 'gpt-4o-mini'] }];
  const candidates = (model: string) => {
    const r = resolve(model, slots, 'chat', upstreams);
    if (r.kind !== 'not_found') throw new Error(`expected not_found, got ${r.kind}`);
    return r.candidates;
  };

  it('puts the case-insensitive exact match first', () => {
    expect(candidates('CHAT')[0]).toBe('chat');
    expect(candidates('GPT-4O')[0]).toBe('gpt-4o');
    expect(candidates('Svc/Primary')[0]).toBe('svc/primary');
  });

  it('offers prefix, substring and near-spelling matches from every kind of id', () => {
    expect(candidates('qwen3')).toEqual(['qwen3-0.6b', 'qwen3-8b-instruct']);
    expect(candidates('gpt')).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(candidates('8b')).toEqual(['qwen3-8b-instruct']);
    expect(candidates('smal')).toEqual(['small', 'bge-small', 'svc/small']);
    expect(candidates('bge-smal1')).toEqual(['bge-small']);
    expect(candidates('primray')).toEqual(['primary']);
    expect(candidates('svc/primray')).toEqual(['svc/primary']);
    expect(candidates('prim')).toEqual(['primary', 'svc/primary']);
  });

  it('lists only virtual names that resolve, and never disabled slots', () => {
    expect([...candidates('svc/')].sort()).toEqual(['svc/chat', 'svc/emb', 'svc/embed', 'svc/npu', 'svc/primary', 'svc/small', 'svc/utility']);
    expect(candidates('secre')).toEqual([]); // near the disabled slot's name: not suggested
    expect(candidates('hidden-mode')).toEqual([]);
    expect(resolve('secret', slots, 'chat', upstreams)).toEqual({ kind: 'disabled', slot: 'secret' }); // named exactly: disabled
  });

  it('caps the list at 10 and answers with nothing close as an empty list', () => {
    const many = Array.from({ length: 20 }, (_, i) => `model-${String(i).padStart(2, '0')}`);
    const r = resolveTarget('model', 'chat', [], [{ name: 'u', modelIds: many }]);
    expect(r).toEqual({ kind: 'not_found', candidates: many.slice(0, 10) });
    expect(candidates('zzzzzzzz')).toEqual([]);
  });

  it('skips the near-match search when asked not to suggest', () => {
    const many = Array.from({ length: 20 }, (_, i) => `model-${String(i).padStart(2, '0')}`);
    expect(resolveTarget('model', 'chat', [], [{ name: 'u', modelIds: many }], { suggest: false })).toEqual({ kind: 'not_found', candidates: [] });
    expect(resolveTarget('model-03', 'chat', [], [{ name: 'u', modelIds: many }], { suggest: false })).toEqual({ kind: 'upstream', upstream: 'u', model: 'model-03' });
  });
});

describe('nearMatches', () => {
  it('ranks equal, prefix, substring, then edit distance, deduplicated', () => {
    expect(nearMatches('Llama', ['llamx', 'xllamax', 'llama-3', 'llama', 'llama', 'other'])).toEqual(['llama', 'llama-3', 'xllamax', 'llamx']);
  });

  it('matches an id contained in a longer query', () => {
    expect(nearMatches('qwen3-8b-q4', ['qwen3-8b', 'q4'])).toEqual(['qwen3-8b']);
  });

  it('honours the limit', () => {
    expect(nearMatches('a', ['a1', 'a2', 'a3'], 2)).toEqual(['a1', 'a2']);
  });
});
