import { describe, expect, it } from 'vitest';
import { replicaGroupRules } from './group-rules.js';
import { PeersFileSchema } from './schema/peers.js';
import { UpstreamsFileSchema } from './schema/remote.js';
import { validateDocument } from './validate.js';

const upstreams = UpstreamsFileSchema.parse({ upstreams: { 'vllm-a': { base_url: 'http://10.0.0.5:8000/v1', kind: 'vllm' }, chat: { base_url: 'http://127.0.0.1:8081/v1', slot: 'chat' } } });

describe('peers.toml [models.<id>].replicas', () => {
  it('takes slot:, peer: and upstream: targets, model optional', () => {
    const doc = { models: { 'qwen-7b': { replicas: [{ target: 'slot:qwen' }, { target: 'peer:b', model: 'qwen2.5-7b-instruct' }] } } };
    expect(validateDocument(PeersFileSchema, doc, 'peers.toml').problems).toEqual([]);
  });

  it('names the field of a target of another kind, an empty list and an unknown key', () => {
    const doc = { models: { pub: { replicas: [{ target: 'slot:a' }, { target: 'node:x' }] }, empty: { replicas: [] }, m: { replicas: [{ target: 'slot:a', weight: 2 }] } } };
    const problems = validateDocument(PeersFileSchema, doc, 'peers.toml').problems.map((p) => `${p.severity} ${p.path}`);
    expect(problems).toEqual(expect.arrayContaining(['error models.pub.replicas[1].target', 'error models.empty.replicas', 'warning models.m.replicas[0].weight']));
  });

  it('checks across files: the slot, peer and upstream named exist, a slot-fronting upstream is named as its slot, no member twice', () => {
    const peers = PeersFileSchema.parse({
      peers: { b: { url: 'http://10.0.0.2:8080' } },
      models: { pub: { replicas: [{ target: 'slot:qwen' }, { target: 'slot:gone' }, { target: 'peer:b' }, { target: 'peer:c' }, { target: 'upstream:vllm-a' }, { target: 'upstream:nope' }, { target: 'upstream:chat' }, { target: 'peer:b' }] } },
    });
    const problems = replicaGroupRules(peers, upstreams, new Set(['qwen', 'chat']));
    expect(problems.map((p) => [p.file, p.path, p.severity])).toEqual([1, 3, 5, 6, 7].map((i) => ['peers.toml', `models.pub.replicas[${i}].target`, 'error']));
    expect(problems.map((p) => p.message)).toEqual([
      'names slot "gone", which has no slots/gone.toml',
      'names peer "c", which has no [peers.c] in peers.toml',
      'names upstream "nope", which has no [upstreams.nope] in upstreams.toml',
      'names upstream "chat", which fronts the local slot chat; name "slot:chat" instead',
      'names peer:b a second time in this group',
    ]);
  });
});
