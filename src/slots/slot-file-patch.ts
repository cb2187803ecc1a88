// `file` of POST and PUT /api/slots: a partial slot file merged into the slot's file. Its
// keys are checked here (only the slot file's own keys; the name never changes); its values
// are checked afterwards on the merged file by the slot file's schema, exactly as a file on
// disk is, so every problem carries the file's path (slot.idle_timeout_s, model.context_size).
// Keys of the file this build does not know stay in the file (the merge is on the raw
// document), but a request cannot add one: a newer svc might read it, and the host-only
// guard (server/engine-input-check.ts) only knows this build's keys.
import type { SlotFile } from '../config/schema/slot.js';
import { imageSection, modelSection, npuSection, serverSection, slotSection } from '../protocol/slot-file.js';
import type { TomlDoc } from '../config/toml.js';
import type { FieldProblem } from '../protocol/issues.js';
import { SLOT_FILE_SECTIONS, type SlotFilePatch } from '../protocol/slot-requests.js';

const SECTION_KEYS: Readonly<Record<(typeof SLOT_FILE_SECTIONS)[number], readonly string[]>> = {
  slot: Object.keys(slotSection.shape),
  model: Object.keys(modelSection.shape),
  server: Object.keys(serverSection.shape),
  npu: Object.keys(npuSection.shape),
  image: Object.keys(imageSection.shape),
};

const isTable = (value: unknown): value is TomlDoc => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What is wrong with a patch's keys, at file.<section>.<key>: an unknown key, or a new name for slot `name`. */
export function filePatchProblems(name: string, patch: SlotFilePatch | undefined): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const section of SLOT_FILE_SECTIONS) {
    const table = patch?.[section];
    if (table === undefined) continue;
    for (const [key, value] of Object.entries(table)) {
      if (!SECTION_KEYS[section].includes(key)) {
        problems.push({ path: `file.${section}.${key}`, message: `not a key of [${section}]; expected one of ${SECTION_KEYS[section].join(', ')}` });
      } else if (section === 'slot' && key === 'name' && value !== name) {
        problems.push({ path: 'file.slot.name', message: `a slot's name cannot change (it names its file, slots/${name}.toml): create a slot under the new name and delete this one` });
      }
    }
  }
  return problems;
}

/** `patch` with `file` laid over it, table by table ([server].env merges key by key too); nulls stay, to remove keys. */
export function withFilePatch(patch: TomlDoc, file: SlotFilePatch | undefined): TomlDoc {
  const out: TomlDoc = { ...patch };
  for (const section of SLOT_FILE_SECTIONS) {
    const table = file?.[section];
    if (table === undefined) continue;
    const base = isTable(out[section]) ? (out[section] as TomlDoc) : {};
    const merged: TomlDoc = { ...base, ...table };
    if (isTable(base.env) && isTable(table.env)) merged.env = { ...base.env, ...table.env };
    out[section] = merged;
  }
  return out;
}

/** The value a patch gives a key (undefined when it gives none or removes it). */
export function patchedValue(file: SlotFilePatch | undefined, section: (typeof SLOT_FILE_SECTIONS)[number], key: string): unknown {
  const value = file?.[section]?.[key];
  return value === null ? undefined : value;
}

/** What differs between two validated versions of a slot file, as section.key with both values. */
export function fileChanges(before: SlotFile, after: SlotFile): Array<{ key: string; before: unknown; after: unknown }> {
  const changes: Array<{ key: string; before: unknown; after: unknown }> = [];
  for (const section of SLOT_FILE_SECTIONS) {
    const was = before[section] as TomlDoc;
    const now = after[section] as TomlDoc;
    for (const key of new Set([...Object.keys(was), ...Object.keys(now)])) {
      if (JSON.stringify(was[key]) !== JSON.stringify(now[key])) changes.push({ key: `${section}.${key}`, before: was[key] ?? null, after: now[key] ?? null });
    }
  }
  return changes;
}
