// Rules that span fields or files. They read the raw documents (checking types as they go)
// so that they report alongside schema errors in the same pass, not after them.
import type { ConfigProblem } from './problems.js';
import { ArgvSyntaxError, tokenize, wordsOrNone } from '../lib/shell-words.js';
import { ownedFlagsIn, ownedFlagsMessage } from '../protocol/host-only.js';
import { POOL_DEFAULT, SLOT_NAME_PATTERN, SLOT_NAME_RULE } from './schema/common.js';
import { TTS_ONLY_KEYS } from './schema/slot.js';
import { rpcSlotRules } from './rpc-rules.js';
import type { TomlDoc } from './toml.js';

type Table = Record<string, unknown>;
const tableAt = (doc: unknown, key: string): Table =>
  doc && typeof doc === 'object' && key in doc && typeof (doc as Table)[key] === 'object' && (doc as Table)[key] !== null
    ? ((doc as Table)[key] as Table)
    : {};
const intOr = (value: unknown, fallback: number) => (Number.isInteger(value) ? (value as number) : fallback);

const error = (file: string, path: string, message: string): ConfigProblem => ({ file, path, message, severity: 'error' });
const warning = (file: string, path: string, message: string): ConfigProblem => ({ file, path, message, severity: 'warning' });

export function svcTomlRules(doc: TomlDoc, file = 'svc.toml'): ConfigProblem[] {
  const slots = tableAt(doc, 'slots');
  const start = intOr(slots.port_range_start, POOL_DEFAULT.start);
  const end = intOr(slots.port_range_end, POOL_DEFAULT.end);
  if (end < start) {
    return [error(file, 'slots.port_range_end', `expected >= slots.port_range_start (${start}); got ${end}`)];
  }
  return [];
}

export interface RawSlotFile {
  /** Path relative to the config root, e.g. slots/chat.toml. */
  readonly file: string;
  /** File name without .toml. */
  readonly stem: string;
  readonly doc: TomlDoc;
}

/** Rules inside one slot file. */
export function slotFileRules({ file, stem, doc }: RawSlotFile): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const slot = tableAt(doc, 'slot');
  if (!SLOT_NAME_PATTERN.test(stem)) {
    problems.push(error(file, '', `the file name must be a slot name (${SLOT_NAME_RULE})`));
  } else if (typeof slot.name === 'string' && slot.name !== stem) {
    problems.push(error(file, 'slot.name', `expected "${stem}" (the file name); got ${JSON.stringify(slot.name)}`));
  }
  const type = typeof slot.type === 'string' ? slot.type : 'llm';
  if (type !== 'tts') {
    for (const key of TTS_ONLY_KEYS) {
      if (slot[key] !== undefined && slot[key] !== null) {
        problems.push(error(file, `slot.${key}`, `only allowed on tts slots; this slot's type is "${type}"`));
      }
    }
  }
  const extraArgs = tableAt(doc, 'server').extra_args;
  if (typeof extraArgs === 'string') {
    try {
      tokenize(extraArgs);
    } catch (e) {
      if (!(e instanceof ArgvSyntaxError)) throw e;
      problems.push(error(file, 'server.extra_args', `cannot split into arguments: ${e.message}`));
    }
    const owned = ownedFlagsIn(wordsOrNone(extraArgs));
    if (owned.length > 0) problems.push(error(file, 'server.extra_args', `${ownedFlagsMessage(owned)} ([slot].port sets the port)`));
  }
  if ('rope_freq_base' in tableAt(doc, 'model')) {
    problems.push(warning(file, 'model.rope_freq_base', 'deprecated and ignored at launch; pass --rope-freq-base in [server].extra_args instead'));
  }
  problems.push(...rpcSlotRules(file, doc));
  return problems;
}

/** Rules across slot files: no two slots on one port. */
export function slotSetRules(slots: readonly RawSlotFile[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const byPort = new Map<number, string>();
  for (const { file, doc } of [...slots].sort((a, b) => a.file.localeCompare(b.file))) {
    const port = tableAt(doc, 'slot').port;
    if (!Number.isInteger(port)) continue;
    const owner = byPort.get(port as number);
    if (owner) problems.push(error(file, 'slot.port', `port ${port} is already used by ${owner}`));
    else byPort.set(port as number, file);
  }
  return problems;
}

/** Token ids and labels are unique. */
export function tokenRules(doc: TomlDoc, file = 'tokens.toml'): ConfigProblem[] {
  const rows = Array.isArray(doc.tokens) ? (doc.tokens as unknown[]) : [];
  const problems: ConfigProblem[] = [];
  for (const field of ['id', 'label'] as const) {
    const seen = new Set<unknown>();
    rows.forEach((row, i) => {
      const value = tableAt({ row }, 'row')[field];
      if (typeof value !== 'string') return;
      if (seen.has(value)) problems.push(error(file, `tokens[${i}].${field}`, `duplicate ${field} ${JSON.stringify(value)}`));
      seen.add(value);
    });
  }
  return problems;
}

/** An upstream or capability that names a slot which does not exist is almost always a typo. */
export function slotReferenceRules(file: string, refs: ReadonlyArray<{ path: string; slot: unknown }>, slotNames: ReadonlySet<string>): ConfigProblem[] {
  return refs
    .filter((ref) => typeof ref.slot === 'string' && !slotNames.has(ref.slot))
    .map((ref) => warning(file, ref.path, `names slot ${JSON.stringify(ref.slot)}, which has no slots/${String(ref.slot)}.toml`));
}

/** Seed profiles are immutable, and a slot's profile must exist (a seed or profiles.toml). */
export function profileRules(
  userProfiles: readonly string[],
  seeds: readonly string[],
  slots: ReadonlyArray<{ file: string; profile: string | null }>,
): ConfigProblem[] {
  const problems = userProfiles
    .filter((name) => seeds.includes(name))
    .map((name) => error('profiles.toml', `profiles.${name}`, `"${name}" is a seed profile and cannot be redefined; clone it under a new name (cloned_from = "${name}")`));
  const known = new Set([...userProfiles, ...seeds]);
  for (const { file, profile } of slots) {
    if (profile !== null && !known.has(profile)) {
      problems.push(error(file, 'slot.profile', `expected a seed profile or one from profiles.toml; got ${JSON.stringify(profile)}`));
    }
  }
  return problems;
}
