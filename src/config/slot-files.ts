// Read-modify-write of slots/<name>.toml. Changes merge into the raw document, so keys this
// build does not know (a newer svc's, a tool's) survive; the merged result is validated on
// its own and against the other slot files before it is written atomically.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic.js';
import type { SvcPaths } from './paths.js';
import type { ConfigProblem } from './problems.js';
import { errorsOf } from './problems.js';
import { slotFileRules, type RawSlotFile } from './rules.js';
import { SLOT_NAME_PATTERN, SLOT_NAME_RULE } from './schema/common.js';
import { SlotFileSchema, type SlotFile } from './schema/slot.js';
import { deepMerge } from './settings.js';
import { readTomlFile, stringifyToml, type TomlDoc } from './toml.js';
import { validateDocument } from './validate.js';

export type SlotUpdate = { ok: true; config: SlotFile; created: boolean } | { ok: false; problems: ConfigProblem[] };

/** The slot file for a name; the name grammar is the traversal guard. */
export function slotFilePath(paths: SvcPaths, name: string): string | undefined {
  return SLOT_NAME_PATTERN.test(name) ? join(paths.slotsDir, `${name}.toml`) : undefined;
}

/** Create or change a slot file. Callers serialise writes (one writer per config root). */
export async function updateSlotFile(paths: SvcPaths, name: string, patch: TomlDoc): Promise<SlotUpdate> {
  const file = `slots/${name}.toml`;
  const target = slotFilePath(paths, name);
  if (!target) return { ok: false, problems: [{ file, path: 'slot.name', message: `expected a slot name: ${SLOT_NAME_RULE}; got ${JSON.stringify(name)}`, severity: 'error' }] };

  const read = await readTomlFile(target, file);
  if (read.status === 'invalid') return { ok: false, problems: [read.problem] };
  const merged = deepMerge(read.status === 'ok' ? read.doc : {}, patch);
  const self: RawSlotFile = { file, stem: name, doc: merged };
  const validated = validateDocument(SlotFileSchema, merged, file);
  const problems = [...validated.problems, ...slotFileRules(self), ...portConflicts(self, await otherSlots(paths, name))];
  if (errorsOf(problems).length > 0 || !validated.value) return { ok: false, problems: errorsOf(problems) };
  await writeFileAtomic(target, stringifyToml(merged));
  return { ok: true, config: validated.value, created: read.status === 'missing' };
}

/** The file being changed is the one blamed for taking another slot's port. */
function portConflicts(self: RawSlotFile, others: readonly RawSlotFile[]): ConfigProblem[] {
  const portOf = (slot: RawSlotFile) => (slot.doc.slot as TomlDoc | undefined)?.port;
  const port = portOf(self);
  const owner = Number.isInteger(port) ? others.find((other) => portOf(other) === port) : undefined;
  return owner ? [{ file: self.file, path: 'slot.port', message: `port ${String(port)} is already used by ${owner.file}`, severity: 'error' }] : [];
}

async function otherSlots(paths: SvcPaths, except: string): Promise<RawSlotFile[]> {
  let names: string[];
  try {
    names = (await readdir(paths.slotsDir)).filter((n) => n.endsWith('.toml') && n !== `${except}.toml`);
  } catch {
    return [];
  }
  const slots: RawSlotFile[] = [];
  for (const name of names) {
    const read = await readTomlFile(join(paths.slotsDir, name), `slots/${name}`);
    if (read.status === 'ok') slots.push({ file: `slots/${name}`, stem: name.slice(0, -5), doc: read.doc });
  }
  return slots;
}
