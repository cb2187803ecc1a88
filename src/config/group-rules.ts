// The cross-file rules of explicit replica groups (peers.toml `[models.<id>].replicas`,
// docs/scaling.md): every member names a slot file, a [peers] entry or an [upstreams]
// entry that exists, an upstream member is a remote one (an upstream with `slot` fronts a
// local slot: name the slot), and no member appears twice in one group. Each problem names
// `models.<id>.replicas[i].target`.
import type { ConfigProblem } from './problems.js';
import { joinPath } from './problems.js';
import { REPLICA_TARGET_PATTERN, type PeersFile } from './schema/peers.js';
import type { UpstreamsFile } from './schema/remote.js';

export function replicaGroupRules(peers: PeersFile | undefined, upstreams: UpstreamsFile | undefined, slotNames: ReadonlySet<string>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [id, group] of Object.entries(peers?.models ?? {})) {
    const seen = new Set<string>();
    group.replicas.forEach((member, i) => {
      const path = joinPath(['models', id, 'replicas', i, 'target']);
      const error = (message: string) => problems.push({ file: 'peers.toml', path, message, severity: 'error' });
      const [, kind, name] = REPLICA_TARGET_PATTERN.exec(member.target) ?? [];
      if (seen.has(member.target)) error(`names ${member.target} a second time in this group`);
      seen.add(member.target);
      if (kind === 'slot' && !slotNames.has(name!)) error(`names slot "${name}", which has no slots/${name}.toml`);
      if (kind === 'peer' && !(name! in (peers?.peers ?? {}))) error(`names peer "${name}", which has no [peers.${name}] in peers.toml`);
      if (kind === 'upstream') {
        const upstream = upstreams?.upstreams[name!];
        if (!upstream) error(`names upstream "${name}", which has no [upstreams.${name}] in upstreams.toml`);
        else if (upstream.slot !== null) error(`names upstream "${name}", which fronts the local slot ${upstream.slot}; name "slot:${upstream.slot}" instead`);
      }
    });
  }
  return problems;
}
