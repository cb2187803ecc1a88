// The slot file's keys that the form's own fields do not cover (workers, timeouts, TTS
// defaults, [model].path, n_gpu_layers, [npu], [image], …), as form controls generated from
// the slot file's zod schema: its kind from the key's type, its hint from the key's
// description, each value checked as typed with the key's own schema, and the `file` patch
// of POST/PUT /api/slots built from what the user changed (an emptied key is sent as null,
// which removes it from the file, so its default applies again). Pure, unit-tested.
import type { z } from 'zod';
import { imageSection, modelSection, npuSection, serverSection, slotSection } from '../../../../src/protocol/slot-file.js';
import type { SlotFilePatch } from '../../../../src/protocol/slot-requests.js';

const SECTIONS = { slot: slotSection, model: modelSection, server: serverSection, npu: npuSection, image: imageSection } as const;
type Section = keyof typeof SECTIONS;

/** Keys the form's own fields edit (with the API's own rules: model names, provider choice, …). */
const OWN_FIELDS = new Set(['slot.name', 'slot.port', 'slot.type', 'slot.device', 'slot.provider', 'slot.profile', 'slot.enabled', 'model.default', 'model.context_size', 'server.extra_args', 'server.env']);

/** Keys that name a host file when set: the server keeps them to this host or an admin. */
const HOST_FILE_KEYS = new Set(['model.path', 'slot.chat_template']);

/** `list`: an array of strings (rpc_workers), typed as words separated by commas or spaces. */
export type ControlKind = 'boolean' | 'enum' | 'integer' | 'number' | 'text' | 'list';

export interface FileControl {
  /** section.key, as the server's problems name it. */
  path: string;
  section: Section;
  key: string;
  kind: ControlKind;
  /** For enum (and boolean) controls. */
  options: readonly string[];
  description: string;
  /** The value the file takes when the key is absent, as the input shows it. */
  defaultText: string;
  hostFile: boolean;
  schema: z.ZodType;
}

interface Def {
  type: string;
  innerType?: z.ZodType;
  format?: string;
  entries?: Record<string, string>;
}
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The key's type under its default and nullable wrappers. */
function baseOf(schema: z.ZodType): Def {
  let def = defOf(schema);
  while ((def.type === 'default' || def.type === 'nullable' || def.type === 'optional' || def.type === 'prefault') && def.innerType) def = defOf(def.innerType);
  return def;
}

function kindOf(def: Def): ControlKind | undefined {
  if (def.type === 'boolean') return 'boolean';
  if (def.type === 'enum') return 'enum';
  if (def.type === 'number') return def.format === 'safeint' ? 'integer' : 'number';
  if (def.type === 'string') return 'text';
  if (def.type === 'array') return 'list';
  return undefined;
}

/** A value as an input holds it: null and undefined are empty. */
export function textOf(value: unknown): string {
  if (Array.isArray(value)) return value.join(', ');
  return value === null || value === undefined ? '' : String(value);
}

/** Every slot file key without a field of its own, in schema order. */
export function fileControls(): FileControl[] {
  const controls: FileControl[] = [];
  for (const [section, object] of Object.entries(SECTIONS) as Array<[Section, (typeof SECTIONS)[Section]]>) {
    for (const [key, schema] of Object.entries(object.shape) as Array<[string, z.ZodType]>) {
      const path = `${section}.${key}`;
      const def = baseOf(schema);
      const kind = kindOf(def);
      if (OWN_FIELDS.has(path) || kind === undefined) continue;
      const options = kind === 'boolean' ? ['true', 'false'] : kind === 'enum' ? Object.values(def.entries ?? {}) : [];
      const fallback = schema.safeParse(undefined);
      controls.push({ path, section, key, kind, options, description: schema.description ?? '', defaultText: fallback.success ? textOf(fallback.data) : '', hostFile: HOST_FILE_KEYS.has(path), schema });
    }
  }
  return controls;
}

/** The inputs' texts for a slot file as validated (every default filled in); the defaults when creating. */
export function fileValuesOf(controls: readonly FileControl[], config: Record<string, Record<string, unknown>> | null): Record<string, string> {
  return Object.fromEntries(controls.map((c) => [c.path, config ? textOf(config[c.section]?.[c.key]) : c.defaultText]));
}

/** What an input's text means: empty is null (remove the key); numbers as numbers when they read as one, else the text for the schema to name. */
export function valueOf(control: FileControl, text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (control.kind === 'boolean') return trimmed === 'true' ? true : trimmed === 'false' ? false : trimmed;
  if (control.kind === 'integer' || control.kind === 'number') return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed;
  if (control.kind === 'list') return trimmed.split(/[\s,]+/).filter(Boolean);
  return control.kind === 'text' ? text : trimmed;
}

/** The key's own schema on the typed value; removing a key (null) is always allowed. */
export function fileProblem(control: FileControl, text: string): string | undefined {
  const value = valueOf(control, text);
  if (value === null) return undefined;
  const parsed = control.schema.safeParse(value);
  return parsed.success ? undefined : parsed.error.issues[0]?.message;
}

/** The `file` patch: each changed key with its new value (null to remove it); undefined when nothing changed. */
export function filePatchOf(controls: readonly FileControl[], before: Readonly<Record<string, string>>, after: Readonly<Record<string, string>>): SlotFilePatch | undefined {
  const patch: Record<string, Record<string, unknown>> = {};
  for (const control of controls) {
    const text = after[control.path] ?? '';
    if (text.trim() === (before[control.path] ?? '').trim()) continue;
    (patch[control.section] ??= {})[control.key] = valueOf(control, text);
  }
  return Object.keys(patch).length > 0 ? (patch as SlotFilePatch) : undefined;
}
