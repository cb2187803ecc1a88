// Resolution: turn a request's `model` into a slot, a remote upstream, or an error.
// Pure: it reads only its arguments. The rules and their order are in docs/routing.md.
import type { SlotType } from '../config/schema/common.js';
import { nearMatches } from '../protocol/near-matches.js';
import { ROUTE_SLOT_TYPES, VIRTUAL_PREFIX } from './types.js';
import type { Resolution, SlotCandidate, UpstreamCatalog, V1Route } from './types.js';

type Step = (slot: SlotCandidate) => boolean;
type Via = Extract<Resolution, { kind: 'slot' }>['via'];

/** Lower is better: ready, then on its way up, then startable, then stopping, then error. */
const STATE_RANK: Readonly<Record<SlotCandidate['state'], number>> = {
  ready: 0, warming: 1, starting: 1, stopped: 2, stopping: 3, error: 4, disabled: 5,
};

/** Disabled slots never match anything, not even by name. */
const isLive = (s: SlotCandidate): boolean => s.enabled && s.state !== 'disabled';

/** In error, or its last start failed: chosen only when nothing else can serve. */
const isFailed = (s: SlotCandidate): boolean => s.state === 'error' || s.failed === true;

const rank = (s: SlotCandidate): number => (s.failed === true ? Math.max(STATE_RANK[s.state], STATE_RANK.error) : STATE_RANK[s.state]);

/** Preference order among slots that could serve: state rank (a failed start ranks as error), then name (code-point order). */
function byPreference(a: SlotCandidate, b: SlotCandidate): number {
  return rank(a) - rank(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

function best(slots: readonly SlotCandidate[]): SlotCandidate | undefined {
  return [...slots].sort(byPreference)[0];
}

const llm = (step: Step): Step => (s) => s.type === 'llm' && step(s);
const ofType = (type: SlotType): Step => (s) => s.type === type;

// Role chains for the chat-like virtual names: each step is tried in order, llm slots only.
const PRIMARY_CHAIN: readonly Step[] = [
  llm((s) => s.role === 'primary'),
  llm((s) => s.name === 'primary'),
  llm(() => true),
];
const UTILITY_CHAIN: readonly Step[] = [llm((s) => s.role === 'utility'), llm((s) => s.name === 'utility'), ...PRIMARY_CHAIN];
const NPU_CHAIN: readonly Step[] = [llm((s) => s.device === 'npu' || s.role === 'npu'), llm((s) => s.name === 'npu'), ...UTILITY_CHAIN];

/** The slot capabilities.toml selects for a capability comes first, when it is of the type. */
const capability = (name: string, type: SlotType): readonly Step[] => [(s) => s.type === type && (s.capabilities?.includes(name) ?? false), ofType(type)];

const VIRTUAL_CHAINS: ReadonlyMap<string, readonly Step[]> = new Map([
  ['svc/primary', PRIMARY_CHAIN],
  ['svc/utility', UTILITY_CHAIN],
  ['svc/npu', NPU_CHAIN],
  ['svc/embed', capability('embed', 'embedding')],
  ['svc/rerank', capability('rerank', 'reranking')],
  ['svc/stt', capability('stt', 'transcription')],
  ['svc/tts', capability('tts', 'tts')],
  ['svc/image', capability('image', 'image')],
]);

/** The fixed virtual names, in listing order. `svc/<slot name>` works for every enabled slot too. */
export const VIRTUAL_NAMES: readonly string[] = [...VIRTUAL_CHAINS.keys()];

/**
 * Walk a chain: the first step with a non-error candidate wins (best of that step). A step
 * whose only candidates are in error is passed over; if every step is like that, the best
 * error candidate of the earliest such step is returned so the caller can report it.
 */
function walkChain(chain: readonly Step[], live: readonly SlotCandidate[]): SlotCandidate | undefined {
  let inError: SlotCandidate | undefined;
  for (const step of chain) {
    const pick = best(live.filter(step));
    if (pick === undefined) continue;
    if (!isFailed(pick)) return pick;
    inError ??= pick;
  }
  return inError;
}

/** What a `svc/*` name resolves to right now, or null (unknown name, or nothing can serve it). */
export function resolveVirtual(name: string, slots: readonly SlotCandidate[]): SlotCandidate | null {
  if (!name.startsWith(VIRTUAL_PREFIX)) return null;
  const live = slots.filter(isLive);
  const chain = VIRTUAL_CHAINS.get(name);
  if (chain !== undefined) return walkChain(chain, live) ?? null;
  const rest = name.slice(VIRTUAL_PREFIX.length);
  return live.find((s) => s.name === rest) ?? null;
}

/**
 * Resolve `model` for a request on `route`; see docs/routing.md for the order and the ties.
 * `suggest: false` leaves a not_found's candidates empty: the dispatcher's first pass over
 * the slots alone takes that, because every request for a remote model ends there and the
 * near-match search costs more than the rest of resolving (docs/performance.md).
 */
export function resolveTarget(
  model: string,
  route: V1Route,
  slots: readonly SlotCandidate[],
  upstreams: readonly UpstreamCatalog[],
  options: { suggest?: boolean } = {},
): Resolution {
  const live = slots.filter(isLive);
  const accepts = ROUTE_SLOT_TYPES[route];
  const fits = (s: SlotCandidate): boolean => accepts.includes(s.type);
  const toSlot = (s: SlotCandidate, via: Via): Resolution =>
    fits(s)
      ? { kind: 'slot', slot: s.name, model: s.modelId, via }
      : { kind: 'wrong_type', slot: s.name, slotType: s.type, route, accepts };

  // 1. Slot name, exact.
  const byName = live.find((s) => s.name === model);
  if (byName !== undefined) return toSlot(byName, 'slot-name');

  // 2. Explicit [slot].role.
  const byRole = best(live.filter((s) => s.role !== null && s.role === model));
  if (byRole !== undefined) return toSlot(byRole, 'role');

  // 3. Virtual svc/* name, resolved live. An unresolved one falls through (an upstream may serve it).
  const virtual = resolveVirtual(model, live);
  if (virtual !== null) return toSlot(virtual, 'virtual');

  // 4. A model id a slot serves; among several, only those whose type fits the route compete.
  const serving = live.filter((s) => s.modelId === model);
  if (serving.length > 0) {
    const fitting = serving.filter(fits);
    return toSlot(best(fitting.length > 0 ? fitting : serving) as SlotCandidate, 'model-id');
  }

  // 5. A remote upstream's model, first upstream in the given order.
  const upstream = upstreams.find((u) => u.modelIds.includes(model));
  if (upstream !== undefined) return { kind: 'upstream', upstream: upstream.name, model };

  // 6. A disabled slot the request names: it is refused as disabled, not as unknown.
  const disabled = slots.find((s) => !isLive(s) && (s.name === model || VIRTUAL_PREFIX + s.name === model || s.modelId === model));
  if (disabled !== undefined) return { kind: 'disabled', slot: disabled.name };

  // 7. Nothing: the ids that could have been meant.
  return { kind: 'not_found', candidates: options.suggest === false ? [] : nearMatches(model, knownIds(live, upstreams)) };
}

/** Every id a request could name right now (disabled slots and unresolvable virtual names left out). */
function knownIds(live: readonly SlotCandidate[], upstreams: readonly UpstreamCatalog[]): string[] {
  const ids: string[] = [];
  for (const s of live) ids.push(s.name, ...(s.role !== null ? [s.role] : []));
  ids.push(...VIRTUAL_NAMES.filter((v) => resolveVirtual(v, live) !== null));
  for (const s of live) ids.push(VIRTUAL_PREFIX + s.name, s.modelId);
  for (const u of upstreams) ids.push(...u.modelIds);
  return ids;
}
