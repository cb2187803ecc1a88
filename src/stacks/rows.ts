// From a stack's rows to the slot files they stand for. Pure: the caller supplies the
// existing files and the choices that need the host (device, engine, port).
//
// A child row (embed, rerank, stt, tts, vision under a primary row) becomes a slot of its
// own, `<slot>-<child>`, and capabilities.toml points the capability at it: one engine
// serving both chat and embeddings (or embeddings and reranking) is what the spec forbids.
import { profileServes, SEED_PROFILES } from '../config/profiles.js';
import type { Profile } from '../config/schema/profiles.js';
import type { Stack } from '../config/schema/stacks.js';
import type { TomlDoc } from '../config/toml.js';
import type { Device, SlotType } from '../protocol/vocabulary.js';
import { own } from '../lib/own.js';

/** One slot the stack names, its own row or a child row. */
export interface EffectiveRow {
  slot: string;
  model: string;
  profile: string | null;
  device: Device | null;
  provider: string | null;
  role: string | null;
  vision: boolean;
  mtp: boolean | null;
  enable_thinking: boolean | null;
  server_extra_args: string | null;
  /** The slot type a child row asks for; null for a primary row (from its profile or model). */
  type: SlotType | null;
  /** For a child row: the capability it serves and the row it came from. */
  capability: { child: string; parent: string } | null;
}

const CHILD_TYPE: Record<string, SlotType> = { embed: 'embedding', rerank: 'reranking', stt: 'transcription', tts: 'tts', vision: 'llm', image: 'image' };

export function effectiveRows(stack: Stack): EffectiveRow[] {
  const rows: EffectiveRow[] = [];
  for (const row of stack.slots) {
    const { capabilities, ...own } = row;
    rows.push({ ...own, type: null, capability: null });
    for (const child of capabilities) {
      if (!child.enabled) continue;
      rows.push({
        slot: `${row.slot}-${child.child}`, model: child.model, profile: null, device: child.device, provider: child.provider, role: null,
        vision: true, mtp: null, enable_thinking: null, server_extra_args: null, type: CHILD_TYPE[child.child] ?? 'llm', capability: { child: child.child, parent: row.slot },
      });
    }
  }
  return rows;
}

/** A new slot's type: a child's, else what its profile serves, else what its model's registry capabilities say, else llm. */
export function typeForRow(row: EffectiveRow, profile: Profile | undefined, modelCapabilities: readonly string[]): SlotType {
  if (row.type) return row.type;
  if (profile) return profileServes(profile)[0] ?? 'llm';
  const caps = new Set(modelCapabilities);
  if (caps.has('embed') || caps.has('embedding')) return 'embedding';
  if (caps.has('rerank') || caps.has('reranking')) return 'reranking';
  if (caps.has('tts')) return 'tts';
  if (caps.has('stt') || caps.has('transcription')) return 'transcription';
  if (caps.has('image')) return 'image';
  return 'llm';
}

/** The device a profile runs on, for a row that names a profile but no device. */
export function deviceOfProfile(profile: Profile): Device | null {
  if (profile.device_class === 'cpu') return 'cpu';
  if (profile.device_class === 'npu') return 'npu';
  if (profile.device_class === 'gpu' && profile.backend) return `gpu-${profile.backend}` as Device;
  if (profile.device_class === 'img') return 'gpu-rocm';
  return null;
}

export const profileNamed = (name: string | null, user: Readonly<Record<string, Profile>>): Profile | undefined =>
  name === null ? undefined : (own(SEED_PROFILES, name) ?? own(user, name));

export interface NewSlotFacts {
  port: number;
  type: SlotType;
  device: Device;
  provider: string;
  /** The context size a new llm/embedding/reranking slot is written with; null for other types. */
  context_size: number | null;
}

/**
 * The slot file a row asks for: the existing document with the row's fields set (unknown
 * keys and the fields a stack does not carry kept), or a new one from `facts`. A null row
 * field removes the key, so the slot takes its default (TOML has no null).
 */
export function desiredSlotDoc(row: EffectiveRow, existing: TomlDoc | undefined, facts: NewSlotFacts | undefined): TomlDoc {
  const base = existing ?? {};
  const slot: TomlDoc = { ...((base.slot as TomlDoc | undefined) ?? {}) };
  const model: TomlDoc = { ...((base.model as TomlDoc | undefined) ?? {}) };
  const server: TomlDoc = { ...((base.server as TomlDoc | undefined) ?? {}) };
  if (!existing && facts) {
    Object.assign(slot, { port: facts.port, type: facts.type, device: facts.device, provider: facts.provider });
    if (facts.context_size !== null) model.context_size = facts.context_size;
  }
  slot.name = row.slot;
  slot.enabled = true;
  if (row.device !== null) slot.device = row.device;
  if (row.provider !== null) slot.provider = row.provider;
  const setOrDrop = (table: TomlDoc, key: string, value: unknown) => {
    if (value === null || value === undefined) delete table[key];
    else table[key] = value as TomlDoc[string];
  };
  setOrDrop(slot, 'profile', row.profile);
  setOrDrop(slot, 'role', row.role);
  setOrDrop(slot, 'mtp', row.mtp);
  setOrDrop(slot, 'enable_thinking', row.enable_thinking);
  slot.vision = row.vision;
  model.default = row.model;
  delete model.path;
  setOrDrop(server, 'extra_args', row.server_extra_args);
  const doc: TomlDoc = { ...base, slot, model };
  if (Object.keys(server).length > 0) doc.server = server;
  else delete doc.server;
  return doc;
}

/** The slot fields a stack sets, compared before and after (what `changes[].fields` lists). */
export const COMPARED_FIELDS = [
  'slot.device', 'slot.provider', 'slot.profile', 'slot.role', 'slot.vision', 'slot.mtp', 'slot.enable_thinking', 'slot.enabled', 'slot.type', 'slot.port',
  'model.default', 'model.path', 'server.extra_args',
] as const;

/** Changes to these need no engine restart: routing reads them per request. */
export const LIVE_FIELDS: ReadonlySet<string> = new Set(['slot.role', 'slot.enabled']);
