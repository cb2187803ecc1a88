import { describe, expect, it } from 'vitest';
import { PeersFileSchema } from '../config/schema/peers.js';
import { UpstreamsFileSchema } from '../config/schema/remote.js';
import { groupMembers } from './groups.js';

const sources = (peers: unknown, upstreams: unknown = {}) => ({ peers: PeersFileSchema.parse(peers), upstreams: UpstreamsFileSchema.parse(upstreams) });

const config = sources({
  peers: { b: { url: 'http://10.0.0.2:8080' }, off: { url: 'http://10.0.0.3:8080', enabled: false } },
  models: {
    'qwen-7b': {
      replicas: [
        { target: 'slot:qwen' },
        { target: 'peer:b', model: 'qwen2.5-7b-instruct' },
        { target: 'peer:off' },
        { target: 'upstream:vllm-a', model: 'Qwen/Qwen2.5-7B-Instruct' },
        { target: 'upstream:lab' },
      ],
    },
  },
}, { upstreams: { 'vllm-a': { base_url: 'http://10.0.0.5:8000/v1', kind: 'vllm' }, lab: { base_url: 'http://10.0.0.6:8000/v1', enabled: false } } });

describe('groupMembers', () => {
  it('lists the enabled members in file order, each with the id it is sent (the group id by default, a slot\'s own id)', () => {
    expect(groupMembers('qwen-7b', config, { fromPeer: false })).toEqual([
      { id: 'slot:qwen', kind: 'slot', name: 'qwen', model: undefined },
      { id: 'peer:b', kind: 'peer', name: 'b', model: 'qwen2.5-7b-instruct' },
      { id: 'upstream:vllm-a', kind: 'upstream', name: 'vllm-a', model: 'Qwen/Qwen2.5-7B-Instruct' },
    ]);
  });

  it('leaves the peers out for a request that came from a peer (no loop between two gateways with the group)', () => {
    expect(groupMembers('qwen-7b', config, { fromPeer: true })?.map((m) => m.id)).toEqual(['slot:qwen', 'upstream:vllm-a']);
  });

  it('defaults a peer\'s or upstream\'s model to the group id; undefined for an id that is no group', () => {
    const s = sources({ peers: { b: { url: 'http://10.0.0.2:8080' } }, models: { pub: { replicas: [{ target: 'peer:b' }] } } });
    expect(groupMembers('pub', s, { fromPeer: false })).toEqual([{ id: 'peer:b', kind: 'peer', name: 'b', model: 'pub' }]);
    expect(groupMembers('other', s, { fromPeer: false })).toBeUndefined();
    expect(groupMembers('constructor', s, { fromPeer: false })).toBeUndefined();
  });
});
