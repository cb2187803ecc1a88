// GET /v1/models: the aggregated catalog, built from the slots and the remote model lists.
// Pure: it reads only its arguments. Order and shapes follow REFERENCE §6 (docs/api.md,
// "GET /v1/models"):
//   (a) one alias entry per enabled llm slot that is served now (SERVED_STATES);
//   (b) each remote endpoint's ids, owned_by the endpoint's name;
//   (c) the svc/* virtual names that resolve to an enabled slot right now.
import { nearMatches } from '../protocol/near-matches.js';
import { resolveTarget, VIRTUAL_NAMES } from './resolve.js';
import type { SlotCandidate, UpstreamCatalog, V1Route } from './types.js';

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

export const OWNED_BY_SVC = 'svc';

export interface SlotAliasEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: typeof OWNED_BY_SVC;
  /** `<slot> · <model id>` */
  name: string;
  context_length: number | null;
}

export interface UpstreamModelEntry {
  id: string;
  object: 'model';
  created: number;
  /** The provider's or upstream's name. */
  owned_by: string;
}

export interface VirtualModelEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: typeof OWNED_BY_SVC;
  context_length: number | null;
  _hal0: { virtual: true; kind: 'live-resolve'; resolves_to: string; device: string };
}

export type ModelEntry = SlotAliasEntry | UpstreamModelEntry | VirtualModelEntry;

export interface ModelList {
  object: 'list';
  data: ModelEntry[];
}

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
    virtuals.push({
      id, object: 'model', created, owned_by: OWNED_BY_SVC, context_length: slot.contextLength,
      _hal0: { virtual: true, kind: 'live-resolve', resolves_to: slot.name, device: slot.device },
    });
  }

  const live = slots.filter((s) => s.enabled && s.state !== 'disabled');
  const taken = new Set<string>([...live.map((s) => s.name), ...live.flatMap((s) => (s.role !== null ? [s.role] : [])), ...virtuals.map((v) => v.id)]);
  const remote: UpstreamModelEntry[] = [];
  for (const catalog of catalogs) {
    for (const id of catalog.modelIds) {
      if (taken.has(id)) continue;
      taken.add(id);
      remote.push({ id, object: 'model', created, owned_by: catalog.name });
    }
  }
  return { object: 'list', data: [...aliases, ...remote, ...virtuals] };
}

/** The entry with this exact id (GET /v1/models/{id}). */
export function findModel(list: ModelList, id: string): ModelEntry | undefined {
  return list.data.find((m) => m.id === id);
}

/** Listed ids close to `id`, best first, for a 404's details.candidates. */
export function nearModelIds(list: ModelList, id: string, limit = 10): string[] {
  return nearMatches(id, list.data.map((m) => m.id), limit);
}
