// GET /v1/models: the aggregated catalog, built from the slots and the remote model lists.
// Pure: it reads only its arguments. Order and shapes follow docs/api.md
// ("GET /v1/models, GET /v1/models/<id>"):
//   (a) one alias entry per enabled llm slot that is served now (SERVED_STATES);
//   (b) the raw model ids each upstream advertises: first the local slots' engines (each
//       enabled slot served now, owned_by svc with its `slot` and a name as an alias's; an
//       llm slot's id is suppressed, its alias covers it), then each remote endpoint's ids,
//       owned_by the endpoint's name;
//   (c) the svc/* virtual names that resolve to an enabled slot right now.
// GET /v1/models/{id} (describeModel) also answers ids that are routable but not listed.
import { resolveTarget, VIRTUAL_NAMES } from './resolve.js';
import type { SlotCandidate, UpstreamCatalog, V1Route } from './types.js';
import type { LocalModelEntry, ModelEntry, ModelList, SlotAliasEntry, UpstreamModelEntry, VirtualModelEntry } from '../protocol/v1-wire.js';

/**
 * Slot states that count as "currently served" for an alias entry: ready, and on its way
 * to ready (starting, warming), since a request sent now is answered once the load ends.
 * Stopped, stopping, error and disabled slots get no alias entry.
 */
export const SERVED_STATES: ReadonlySet<SlotCandidate['state']> = new Set(['ready', 'warming', 'starting']);

/** The route a virtual name is resolved for: what kind of slot it names. */
const VIRTUAL_ROUTES: Readonly<Record<string, V1Route>> = {
  'svc/embed': 'embeddings',
  'svc/rerank': 'rerank',
  'svc/stt': 'transcriptions',
  'svc/tts': 'speech',
  'svc/image': 'images',
};

export const OWNED_BY_SVC = 'svc' as const;

export type { LocalModelEntry, ModelEntry, ModelList, SlotAliasEntry, UpstreamModelEntry, VirtualModelEntry };

/**
 * The /v1/models body. `nowMs` (ms since the epoch) becomes every entry's `created` (epoch
 * seconds): svc does not know when a remote model was made, and an alias is as new as now.
 *
 * An upstream id is left out when something else owns that name for routing (the
 * resolver tries slots and svc/* names before remote upstreams, docs/routing.md): the
 * name or explicit role of an enabled slot, a listed virtual name, or an id an earlier
 * upstream already listed (the first upstream in order serves it).
 */
export function buildModelList(slots: readonly SlotCandidate[], catalogs: readonly UpstreamCatalog[], nowMs: number): ModelList {
  const created = Math.floor(nowMs / 1000);
  const aliases: SlotAliasEntry[] = slots
    .filter((s) => s.enabled && s.type === 'llm' && SERVED_STATES.has(s.state))
    .map((s) => ({ id: s.name, object: 'model', created, owned_by: OWNED_BY_SVC, name: `${s.name} · ${s.modelId}`, context_length: s.contextLength }));

  const virtuals: VirtualModelEntry[] = [];
  for (const id of VIRTUAL_NAMES) {
    const target = resolveTarget(id, VIRTUAL_ROUTES[id] ?? 'chat', slots, []);
    if (target.kind !== 'slot') continue;
    const slot = slots.find((s) => s.name === target.slot);
    if (!slot?.enabled) continue;
    virtuals.push(virtualEntry(id, slot, created));
  }

  const live = slots.filter((s) => s.enabled && s.state !== 'disabled');
  const taken = new Set<string>([...live.map((s) => s.name), ...live.flatMap((s) => (s.role !== null ? [s.role] : [])), ...virtuals.map((v) => v.id)]);
  // The local engines advertise the model they serve: a stopped one advertises nothing.
  // svc serves them (owned_by svc, as the aliases); which slot is `slot`, not the owner.
  const raw: Array<LocalModelEntry | UpstreamModelEntry> = [];
  for (const s of live.filter((slot) => slot.type !== 'llm' && SERVED_STATES.has(slot.state) && slot.modelId !== '')) {
    if (taken.has(s.modelId)) continue;
    taken.add(s.modelId);
    raw.push({ id: s.modelId, object: 'model', created, owned_by: OWNED_BY_SVC, name: `${s.name} · ${s.modelId}`, slot: s.name });
  }
  for (const catalog of catalogs) {
    for (const id of catalog.modelIds) {
      if (taken.has(id)) continue;
      taken.add(id);
      raw.push({ id, object: 'model', created, owned_by: catalog.name });
    }
  }
  return { object: 'list', data: [...aliases, ...raw, ...virtuals] };
}

/** The entry with this exact id in the list. */
export function findModel(list: ModelList, id: string): ModelEntry | undefined {
  return list.data.find((m) => m.id === id);
}

/** Routes tried, in order, to find what an id names (completions is chat's twin). */
const DESCRIBE_ROUTES: readonly V1Route[] = ['chat', 'embeddings', 'rerank', 'transcriptions', 'speech', 'images'];

/**
 * GET /v1/models/{id}: the listed entry, else an entry for any id a request could be routed
 * with (a stopped slot's name, an llm slot's model id, `svc/<slot>`, …), shaped like the
 * list's entries of that kind; `{disabled}` when only a disabled slot would serve it;
 * undefined when nothing does.
 */
export function describeModel(id: string, slots: readonly SlotCandidate[], catalogs: readonly UpstreamCatalog[], nowMs: number): ModelEntry | { disabled: string } | undefined {
  const listed = findModel(buildModelList(slots, catalogs, nowMs), id);
  if (listed) return listed;
  const created = Math.floor(nowMs / 1000);
  let disabled: string | undefined;
  for (const route of DESCRIBE_ROUTES) {
    const target = resolveTarget(id, route, slots, catalogs, { suggest: false });
    if (target.kind === 'upstream') return { id, object: 'model', created, owned_by: target.upstream };
    if (target.kind === 'disabled') disabled ??= target.slot;
    if (target.kind !== 'slot') continue;
    const slot = slots.find((s) => s.name === target.slot)!;
    if (target.via === 'model-id') return { id, object: 'model', created, owned_by: OWNED_BY_SVC, name: `${slot.name} · ${slot.modelId}`, slot: slot.name };
    if (target.via === 'virtual') return virtualEntry(id, slot, created);
    return { id, object: 'model', created, owned_by: OWNED_BY_SVC, name: `${slot.name} · ${slot.modelId}`, context_length: slot.contextLength };
  }
  return disabled === undefined ? undefined : { disabled };
}

function virtualEntry(id: string, slot: SlotCandidate, created: number): VirtualModelEntry {
  return { id, object: 'model', created, owned_by: OWNED_BY_SVC, context_length: slot.contextLength, _hal0: { virtual: true, kind: 'live-resolve', resolves_to: slot.name, device: slot.device } };
}
