// Explicit replica groups (peers.toml `[models.<id>].replicas`, docs/scaling.md): a public
// model id served by members that may call it by other names. Pure: which members a request
// for the group may go to, and the id each one is sent. Whether a member can take the
// request now (a slot's type, a breaker) is the dispatcher's business.
import type { PeersFile } from '../config/schema/peers.js';
import { REPLICA_TARGET_PATTERN } from '../config/schema/peers.js';
import type { UpstreamsFile } from '../config/schema/remote.js';

export interface GroupMember {
  /** `slot:<name>`, `peer:<name>` or `upstream:<name>`: the X-Svc-Target value. */
  id: string;
  kind: 'slot' | 'peer' | 'upstream';
  name: string;
  /** The model id sent to it; undefined for a slot without `model` (the slot's own model id). */
  model: string | undefined;
}

export interface GroupSources {
  peers: PeersFile;
  upstreams: UpstreamsFile;
}

/**
 * The members of group `id` a request may go to, in file order: disabled peers and upstreams
 * are left out, and so is every peer when the request came from a peer (the hop rule: two
 * gateways with the same group cannot pass a request back and forth). Undefined when `id`
 * is no group.
 */
export function groupMembers(id: string, sources: GroupSources, options: { fromPeer: boolean }): GroupMember[] | undefined {
  if (!Object.hasOwn(sources.peers.models, id)) return undefined;
  const members: GroupMember[] = [];
  for (const member of sources.peers.models[id]!.replicas) {
    const [, kind, name] = REPLICA_TARGET_PATTERN.exec(member.target) as unknown as [string, GroupMember['kind'], string];
    if (kind === 'peer' && (options.fromPeer || sources.peers.peers[name]?.enabled !== true)) continue;
    if (kind === 'upstream' && sources.upstreams.upstreams[name]?.enabled !== true) continue;
    members.push({ id: member.target, kind, name, model: member.model ?? (kind === 'slot' ? undefined : id) });
  }
  return members;
}
