// The plan of a stack apply: per slot what changes (before and after), what the runtime
// then does (load, swap, restart, nothing), which running slots are unloaded, and every
// guard that refuses it. Pure: apply.ts gathers the files, states and host facts first, so
// a dry run and a real apply compute the same plan from the same inputs.
import { npuExclusivityConflicts } from '../config/npu.js';
import { profileFitsDevice, profileServes } from '../config/profiles.js';
import { slotFileRules, slotSetRules, type RawSlotFile } from '../config/rules.js';
import type { Profile } from '../config/schema/profiles.js';
import { SlotFileSchema, type SlotFile } from '../config/schema/slot.js';
import type { TomlDoc } from '../config/toml.js';
import { validateDocument } from '../config/validate.js';
import type { StackGuardProblem, StackModelReport, StackSlotPlan, StackUnresolvableModel } from '../protocol/stacks.js';
import { SLOT_NAME_PATTERN } from '../protocol/vocabulary.js';
import { COMPARED_FIELDS, desiredSlotDoc, LIVE_FIELDS, profileNamed, type EffectiveRow, type NewSlotFacts } from './rows.js';

/** Runtime states in which an engine runs or is about to: such a slot is swapped, restarted or unloaded. */
export const RUNNING_STATES: ReadonlySet<string> = new Set(['starting', 'warming', 'ready']);

export interface PlanInput {
  rows: readonly EffectiveRow[];
  /** Every slot file on disk, by slot name (the raw documents, unknown keys included). */
  files: ReadonlyMap<string, TomlDoc>;
  /** Validated configs of the slots loaded now, by name. */
  configs: ReadonlyMap<string, SlotFile>;
  /** Runtime state of every slot, by name. */
  states: ReadonlyMap<string, string>;
  /** For rows whose slot does not exist: its port, type, device, engine. */
  facts: ReadonlyMap<string, NewSlotFacts>;
  userProfiles: Readonly<Record<string, Profile>>;
  models: readonly StackModelReport[];
  /** Ports of named slots that another process holds while the slot is not running. */
  busyPorts: ReadonlySet<number>;
}

export interface StackPlanResult {
  changes: StackSlotPlan[];
  creates: string[];
  unloads: string[];
  problems: StackGuardProblem[];
  /** The models no registry entry, file or known repo resolves here (each also a `model` guard problem). */
  unresolvable: StackUnresolvableModel[];
  /** The slot files as they will be written, by name. */
  docs: Map<string, TomlDoc>;
}

const get = (doc: TomlDoc, key: string): unknown => {
  const [section, field] = key.split('.') as [string, string];
  return (doc[section] as TomlDoc | undefined)?.[field];
};

export function planStack(input: PlanInput): StackPlanResult {
  const problems: StackGuardProblem[] = [];
  const docs = new Map<string, TomlDoc>();
  const changes: StackSlotPlan[] = [];
  const seen = new Set<string>();
  for (const row of input.rows) {
    if (seen.has(row.slot)) problems.push({ slot: row.slot, guard: 'config', message: `the stack names slot ${row.slot} twice` });
    seen.add(row.slot);
    if (!SLOT_NAME_PATTERN.test(row.slot)) {
      problems.push({ slot: row.slot, guard: 'config', message: `"${row.slot}" is not a valid slot name (a child slot is named <slot>-<child>; shorten the parent's name)` });
      continue;
    }
    const existing = input.files.get(row.slot);
    const doc = desiredSlotDoc(row, existing, input.facts.get(row.slot));
    docs.set(row.slot, doc);
    const validated = validateDocument(SlotFileSchema, doc, `slots/${row.slot}.toml`);
    const fileProblems = [...validated.problems, ...slotFileRules({ file: `slots/${row.slot}.toml`, stem: row.slot, doc })].filter((p) => p.severity === 'error');
    for (const p of fileProblems) problems.push({ slot: row.slot, guard: 'config', message: `${p.path}: ${p.message}` });
    const after = validated.value;
    if (after) problems.push(...coherence(row, after, input.userProfiles));
    const before = input.configs.get(row.slot);
    const fields = COMPARED_FIELDS.map((key) => ({ key, before: before ? (get(before as unknown as TomlDoc, key) ?? null) : null, after: after ? (get(after as unknown as TomlDoc, key) ?? null) : null }))
      .filter((f) => JSON.stringify(f.before) !== JSON.stringify(f.after));
    const action = !existing ? 'create' : fields.length === 0 ? 'unchanged' : 'edit';
    const running = RUNNING_STATES.has(input.states.get(row.slot) ?? 'stopped');
    const restartNeeded = fields.some((f) => !LIVE_FIELDS.has(f.key) && f.key !== 'model.default');
    const modelChanged = fields.some((f) => f.key === 'model.default');
    const runtime = !running ? 'load' : restartNeeded ? 'restart' : modelChanged ? 'swap' : 'none';
    changes.push({ slot: row.slot, action, runtime, before_model: before?.model.default ?? null, after_model: row.model, changed: action !== 'unchanged', fields, ...(row.capability && { capability: row.capability.child, parent: row.capability.parent }) });
    if (after && running === false && input.busyPorts.has(after.slot.port)) {
      problems.push({ slot: row.slot, guard: 'port', message: `port ${after.slot.port} is held by another process; free it or give slot ${row.slot} another port` });
    }
  }
  const unresolvable = unresolvableModels(input);
  problems.push(...unresolvable.map((m) => ({ slot: m.slots[0] ?? '', guard: 'model' as const, message: m.message })), ...setGuards(input, docs));
  const named = new Set(input.rows.map((r) => r.slot));
  const unloads = [...input.states].filter(([name, state]) => !named.has(name) && RUNNING_STATES.has(state)).map(([name]) => name).sort();
  return { changes, creates: changes.filter((c) => c.action === 'create').map((c) => c.slot), unloads, problems, unresolvable, docs };
}

/**
 * Each model no registry entry, file or known Hugging Face repo resolves on this host, with
 * the slots that name it and what to do. The built-in stacks name their author's own builds
 * (private ROCm conversions): on another host their dry run leads with these lines.
 */
function unresolvableModels(input: PlanInput): StackUnresolvableModel[] {
  return input.models
    .filter((m) => m.status === 'unresolvable')
    .map((m) => {
      const slots = input.rows.filter((r) => r.model === m.id).map((r) => r.slot);
      const named = `slot${slots.length === 1 ? '' : 's'} ${slots.join(', ')}`;
      return { model: m.id, slots, message: `model ${m.id} (${named}) cannot be resolved on this host: it is not in the registry and no Hugging Face repo is known for it; register a file you have (svc model register ${m.id} --path <file>) or apply a copy of the stack that names a model you have` };
    });
}

/** Device/profile coherence: the profile exists, runs on the slot's device and serves its type. */
function coherence(row: EffectiveRow, slot: SlotFile, userProfiles: Readonly<Record<string, Profile>>): StackGuardProblem[] {
  if (row.profile === null) return [];
  const profile = profileNamed(row.profile, userProfiles);
  if (!profile) return [{ slot: row.slot, guard: 'device_profile', message: `profile ${row.profile} is neither a seed profile nor in profiles.toml` }];
  const out: StackGuardProblem[] = [];
  if (!profileFitsDevice(profile, slot.slot.device)) out.push({ slot: row.slot, guard: 'device_profile', message: `profile ${row.profile} (${profile.device_class}${profile.backend ? `/${profile.backend}` : ''}) does not run on device ${slot.slot.device}` });
  if (!profileServes(profile).includes(slot.slot.type)) out.push({ slot: row.slot, guard: 'device_profile', message: `profile ${row.profile} serves ${profileServes(profile).join(', ')}, not a ${slot.slot.type} slot` });
  return out;
}

/** Rules over the whole new set: ports unique, NPU exclusivity, one primary per type. */
function setGuards(input: PlanInput, docs: ReadonlyMap<string, TomlDoc>): StackGuardProblem[] {
  const all = new Map(input.files);
  for (const [name, doc] of docs) all.set(name, doc);
  const raws: RawSlotFile[] = [...all].map(([name, doc]) => ({ file: `slots/${name}.toml`, stem: name, doc }));
  const problems: StackGuardProblem[] = slotSetRules(raws).filter((p) => p.severity === 'error').map((p) => ({ slot: p.file.slice(6, -5), guard: 'port', message: `${p.path}: ${p.message}` }));
  const facts = [...all].map(([name, doc]) => {
    const slot = (doc.slot as TomlDoc | undefined) ?? {};
    return { name, device: String(slot.device ?? 'gpu-rocm'), type: String(slot.type ?? 'llm'), enabled: slot.enabled !== false, role: typeof slot.role === 'string' ? slot.role : null };
  });
  for (const name of docs.keys()) {
    const conflicts = npuExclusivityConflicts(facts as Parameters<typeof npuExclusivityConflicts>[0], name);
    if (conflicts.length > 0) problems.push({ slot: name, guard: 'npu_exclusivity', message: `the NPU runs one engine, and ${conflicts.join(', ')} would also be an enabled NPU llm slot` });
  }
  const primaries = new Map<string, string[]>();
  for (const f of facts.filter((x) => x.enabled && x.role === 'primary')) primaries.set(f.type, [...(primaries.get(f.type) ?? []), f.name]);
  for (const [type, names] of primaries) {
    if (names.length > 1 && names.some((n) => docs.has(n))) problems.push({ slot: names.find((n) => docs.has(n))!, guard: 'default_unique', message: `more than one enabled ${type} slot has role primary (${names.sort().join(', ')}): the default for a type must be one slot` });
  }
  return problems;
}
