import { describe, expect, it } from 'vitest';
import { buildModelList, describeModel, findModel, SERVED_STATES } from './model-list.js';
import type { SlotCandidate, UpstreamCatalog } from './types.js';

const NOW = 1_700_000_000_123;
const CREATED = 1_700_000_000;

function slot(name: string, over: Partial<SlotCandidate> = {}): SlotCandidate {
  return { name, type: 'llm', role: null, device: 'cpu', enabled: true, state: 'ready', modelId: `${name}-model`, contextLength: 4096, ...over };
}

const ids = (slots: SlotCandidate[], catalogs: UpstreamCatalog[] = []) => buildModelList(slots, catalogs, NOW).data.map((m) => m.id);

describe('buildModelList', () => {
  it('orders aliases, then upstream ids, then virtual names, with the documented shapes', () => {
    const list = buildModelList(
      [slot('chat', { role: 'primary', device: 'gpu-rocm', modelId: 'qwen3-8b', contextLength: 8192 }), slot('emb', { type: 'embedding', state: 'stopped', modelId: 'bge', contextLength: 512 })],
      [{ name: 'lab', modelIds: ['remote-a', 'remote-b'] }],
      NOW,
    );
    expect(list.object).toBe('list');
    expect(list.data).toEqual([
      { id: 'chat', object: 'model', created: CREATED, owned_by: 'svc', name: 'chat · qwen3-8b', context_length: 8192 },
      { id: 'remote-a', object: 'model', created: CREATED, owned_by: 'lab' },
      { id: 'remote-b', object: 'model', created: CREATED, owned_by: 'lab' },
      { id: 'svc/primary', object: 'model', created: CREATED, owned_by: 'svc', context_length: 8192, _hal0: { virtual: true, kind: 'live-resolve', resolves_to: 'chat', device: 'gpu-rocm' } },
      { id: 'svc/utility', object: 'model', created: CREATED, owned_by: 'svc', context_length: 8192, _hal0: { virtual: true, kind: 'live-resolve', resolves_to: 'chat', device: 'gpu-rocm' } },
      { id: 'svc/npu', object: 'model', created: CREATED, owned_by: 'svc', context_length: 8192, _hal0: { virtual: true, kind: 'live-resolve', resolves_to: 'chat', device: 'gpu-rocm' } },
      { id: 'svc/embed', object: 'model', created: CREATED, owned_by: 'svc', context_length: 512, _hal0: { virtual: true, kind: 'live-resolve', resolves_to: 'emb', device: 'cpu' } },
    ]);
  });

  it('alias entries: enabled llm slots in a served state only', () => {
    expect([...SERVED_STATES].sort()).toEqual(['ready', 'starting', 'warming']);
    const slots = (['stopped', 'starting', 'warming', 'ready', 'stopping', 'error'] as const).map((state) => slot(`s-${state}`, { state }));
    slots.push(slot('off', { enabled: false, state: 'disabled' }), slot('tts', { type: 'tts' }));
    const aliases = buildModelList(slots, [], NOW).data.filter((m) => 'name' in m && !('slot' in m)).map((m) => m.id);
    expect(aliases).toEqual(['s-starting', 's-warming', 's-ready']);
  });

  it('virtual names only when they resolve to an enabled slot now (a stopped one counts)', () => {
    expect(ids([])).toEqual([]);
    expect(ids([slot('chat', { enabled: false, state: 'disabled' })])).toEqual([]);
    expect(ids([slot('chat', { state: 'stopped' })])).toEqual(['svc/primary', 'svc/utility', 'svc/npu']);
    const kinds = [slot('r', { type: 'reranking' }), slot('s', { type: 'transcription' }), slot('t', { type: 'tts' }), slot('i', { type: 'image' })];
    expect(ids(kinds)).toEqual(['r-model', 's-model', 't-model', 'i-model', 'svc/rerank', 'svc/stt', 'svc/tts', 'svc/image']);
  });

  it('a virtual name follows the resolver: svc/utility prefers the utility role', () => {
    const list = buildModelList([slot('big', { role: 'primary' }), slot('small', { role: 'utility', device: 'gpu-vulkan' })], [], NOW);
    expect(findModel(list, 'svc/utility')).toMatchObject({ _hal0: { resolves_to: 'small', device: 'gpu-vulkan' } });
    expect(findModel(list, 'svc/primary')).toMatchObject({ _hal0: { resolves_to: 'big' } });
  });

  it('upstream ids shadowed by a slot name, role, virtual name or an earlier upstream are left out', () => {
    const slots = [slot('chat', { role: 'helper', state: 'stopped' }), slot('off', { enabled: false, state: 'disabled' })];
    const catalogs = [
      { name: 'a', modelIds: ['chat', 'helper', 'svc/primary', 'off', 'chat-model', 'shared'] },
      { name: 'b', modelIds: ['shared', 'only-b'] },
    ];
    const list = buildModelList(slots, catalogs, NOW);
    const remote = list.data.filter((m) => m.owned_by !== 'svc').map((m) => `${m.owned_by}:${m.id}`);
    expect(remote).toEqual(['a:off', 'a:chat-model', 'a:shared', 'b:only-b']);
  });

  it('findModel', () => {
    const list = buildModelList([slot('chat')], [{ name: 'lab', modelIds: ['llama-3.1-8b'] }], NOW);
    expect(findModel(list, 'llama-3.1-8b')).toEqual({ id: 'llama-3.1-8b', object: 'model', created: CREATED, owned_by: 'lab' });
    expect(findModel(list, 'nope')).toBeUndefined();
  });
});

describe('buildModelList (b): the raw ids the local engines advertise', () => {
  it('each served non-chat slot lists its model id, owned_by svc with its slot, after the aliases and before remote ids', () => {
    const slots = [
      slot('chat', { modelId: 'svc-tiny' }),
      slot('emb', { type: 'embedding', modelId: 'bge-small' }),
      slot('rr', { type: 'reranking', modelId: 'svc-tiny-rerank', state: 'warming' }),
      slot('ears', { type: 'transcription', modelId: 'moonshine-tiny-en', state: 'stopped' }),
      slot('off', { type: 'embedding', modelId: 'e5', enabled: false, state: 'disabled' }),
      slot('bad', { type: 'tts', modelId: 'kokoro', state: 'error' }),
    ];
    const list = buildModelList(slots, [{ name: 'lab', modelIds: ['bge-small', 'remote-x'] }], NOW);
    const raw = list.data.filter((m) => !('context_length' in m)).map((m) => `${'slot' in m ? `slot ${m.slot}` : m.owned_by}:${m.id}`);
    // The chat slot's id is covered by its alias; stopped, disabled and failed engines advertise nothing;
    // the remote's bge-small is the local slot's (routing tries slots first).
    expect(raw).toEqual(['slot emb:bge-small', 'slot rr:svc-tiny-rerank', 'lab:remote-x']);
    expect(list.data.map((m) => m.id).indexOf('bge-small')).toBe(1);
    // svc serves it, as it serves the aliases: the slot is named, not taken for the owner.
    expect(findModel(list, 'bge-small')).toEqual({ id: 'bge-small', object: 'model', created: CREATED, owned_by: 'svc', name: 'emb · bge-small', slot: 'emb' });
  });

  it('no duplicates: two slots serving one id list it once (the first), and a slot name or role wins', () => {
    const slots = [slot('a', { type: 'embedding', modelId: 'same' }), slot('b', { type: 'embedding', modelId: 'same' }), slot('c', { type: 'embedding', modelId: 'a' })];
    expect(ids(slots).filter((id) => id === 'same' || id === 'a')).toEqual(['same']);
  });
});

describe('describeModel (GET /v1/models/{id})', () => {
  const slots = [
    slot('chat', { modelId: 'svc-tiny', role: 'primary', state: 'stopped', contextLength: 2048 }),
    slot('emb', { type: 'embedding', modelId: 'bge-small', state: 'stopped', contextLength: 512 }),
    slot('old', { type: 'embedding', modelId: 'e5', enabled: false, state: 'disabled' }),
  ];
  const catalogs = [{ name: 'lab', modelIds: ['remote-x'] }];
  const describe_ = (id: string) => describeModel(id, slots, catalogs, NOW);

  it('answers every routable id, listed or not, in the shape of its kind', () => {
    expect(describe_('chat')).toEqual({ id: 'chat', object: 'model', created: CREATED, owned_by: 'svc', name: 'chat · svc-tiny', context_length: 2048 });
    expect(describe_('primary')).toEqual({ id: 'primary', object: 'model', created: CREATED, owned_by: 'svc', name: 'chat · svc-tiny', context_length: 2048 });
    expect(describe_('emb')).toMatchObject({ id: 'emb', owned_by: 'svc', name: 'emb · bge-small' });
    expect(describe_('svc-tiny')).toEqual({ id: 'svc-tiny', object: 'model', created: CREATED, owned_by: 'svc', name: 'chat · svc-tiny', slot: 'chat' });
    expect(describe_('bge-small')).toEqual({ id: 'bge-small', object: 'model', created: CREATED, owned_by: 'svc', name: 'emb · bge-small', slot: 'emb' });
    expect(describe_('svc/emb')).toEqual({ id: 'svc/emb', object: 'model', created: CREATED, owned_by: 'svc', context_length: 512, _hal0: { virtual: true, kind: 'live-resolve', resolves_to: 'emb', device: 'cpu' } });
    expect(describe_('svc/embed')).toMatchObject({ id: 'svc/embed', _hal0: { resolves_to: 'emb' } });
    expect(describe_('remote-x')).toEqual({ id: 'remote-x', object: 'model', created: CREATED, owned_by: 'lab' });
  });

  it('a disabled slot says so; anything else is unknown', () => {
    expect(describe_('old')).toEqual({ disabled: 'old' });
    expect(describe_('e5')).toEqual({ disabled: 'old' });
    expect(describe_('nope')).toBeUndefined();
    expect(describe_('svc/image')).toBeUndefined();
  });
});
