// The slot form's values (strings as the inputs hold them) and the request bodies built from
// them: POST /api/slots takes every field given, PUT /api/slots/<name> only what changed.
// Pure, so the mapping is unit-tested apart from the page.
import type { CreateSlotRequest, EditSlotRequest, SlotDetailPayload } from '../../../../src/protocol/slots.js';

export interface SlotFormValues {
  name: string;
  model: string;
  type: string;
  provider: string;
  device: string;
  port: string;
  ctx_size: string;
  profile: string;
  extra_args: string;
  /** [server].env as "NAME=value" lines. */
  env: string;
  enabled: boolean;
}

export type SlotFormField = keyof SlotFormValues;

export const EMPTY_FORM: SlotFormValues = { name: '', model: '', type: '', provider: '', device: '', port: '', ctx_size: '', profile: '', extra_args: '', env: '', enabled: true };

/** A number input's text: empty is "not given"; digits a number; anything else stays text so the schema names it. */
export function numberOf(text: string): number | string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
}

export interface ParsedEnv {
  env: Record<string, string>;
  /** Lines that are not NAME=value, as "line N: …". */
  problems: string[];
}

/** "NAME=value" lines (blank lines skipped) into a map; the value may hold "=". */
export function parseEnv(text: string): ParsedEnv {
  const env: Record<string, string> = {};
  const problems: string[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const at = line.indexOf('=');
    if (at <= 0) problems.push(`line ${index + 1}: expected NAME=value`);
    else env[line.slice(0, at).trim()] = line.slice(at + 1);
  });
  return { env, problems };
}

export function formatEnv(env: Readonly<Record<string, string>> | null | undefined): string {
  return Object.entries(env ?? {}).map(([name, value]) => `${name}=${value}`).join('\n');
}

const given = (text: string): string | undefined => (text.trim() === '' ? undefined : text.trim());

/** POST /api/slots: every field the user filled in; empty ones are left to the server's defaults. */
export function createBody(values: SlotFormValues): CreateSlotRequest {
  const env = parseEnv(values.env).env;
  const body: Record<string, unknown> = {
    name: values.name.trim(),
    model: values.model.trim(),
    type: given(values.type),
    provider: given(values.provider),
    device: given(values.device),
    port: numberOf(values.port),
    ctx_size: numberOf(values.ctx_size),
    profile: given(values.profile),
    extra_args: given(values.extra_args),
    env: Object.keys(env).length > 0 ? env : undefined,
    // A new slot is enabled unless the file says otherwise: only "disabled" is worth sending.
    file: values.enabled ? undefined : { slot: { enabled: false } },
  };
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)) as CreateSlotRequest;
}

/**
 * PUT /api/slots/<name>: only the fields that differ from the file. Cleared extra args are
 * "" and a cleared environment {} (the API's way to remove them); a cleared context size or
 * profile is removed from the file through `file` (null), so the default applies again; a
 * slot always has a port, so a cleared one is left out.
 */
export function editBody(before: SlotFormValues, values: SlotFormValues): EditSlotRequest {
  const body: Record<string, unknown> = {};
  const changed = (field: SlotFormField) => values[field] !== before[field];
  for (const field of ['model', 'provider', 'device', 'profile'] as const) if (changed(field) && given(values[field]) !== undefined) body[field] = given(values[field]);
  for (const field of ['port', 'ctx_size'] as const) if (changed(field) && numberOf(values[field]) !== undefined) body[field] = numberOf(values[field]);
  if (changed('extra_args')) body.extra_args = values.extra_args.trim();
  if (formatEnv(parseEnv(values.env).env) !== formatEnv(parseEnv(before.env).env)) body.env = parseEnv(values.env).env;
  if (changed('enabled')) body.enabled = values.enabled;
  const cleared = { slot: changed('profile') && given(values.profile) === undefined ? { profile: null } : {}, model: changed('ctx_size') && given(values.ctx_size) === undefined ? { context_size: null } : {} };
  if (Object.keys(cleared.slot).length + Object.keys(cleared.model).length > 0) {
    body.file = Object.fromEntries(Object.entries(cleared).filter(([, table]) => Object.keys(table).length > 0));
  }
  return body as EditSlotRequest;
}

/** The form's values for a slot as its file says (the validated config), not as it runs now. */
export function valuesOfDetail(detail: SlotDetailPayload): SlotFormValues {
  const { slot, model, server } = detail.config as { slot: Record<string, unknown>; model: Record<string, unknown>; server: Record<string, unknown> };
  const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));
  return {
    name: detail.name,
    model: text(model.default),
    type: text(slot.type),
    provider: text(slot.provider),
    device: text(slot.device),
    port: text(slot.port),
    ctx_size: text(model.context_size),
    profile: text(slot.profile),
    extra_args: text(server.extra_args),
    env: formatEnv(server.env as Record<string, string> | null),
    enabled: slot.enabled !== false,
  };
}
