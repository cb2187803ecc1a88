// Where each problem goes in the slot form: the request's own paths (name, port, env.LD_X),
// the slot file's paths of a config.invalid (slot.port, model.context_size, server.env; a
// key without a field of its own goes to its generated control, slot.workers), `file.`'s
// paths of a request.invalid (file.slot.name, file.slot.workerz) the same way, and
// a few codes that are about one field (model.not_found). What names no field is shown at
// the top. Problems in another file (the full reload found a broken file) stay at the top too.
import { hostOnlyEnvIn, LAN_ENV } from '../../../../src/protocol/host-only.js';
import { ApiError } from '../../api-error.js';
import { fileControls } from './file-fields.js';
import type { SlotFormField } from './form-values.js';

/** A field of the form: one of its own (port, env, …) or a slot file key without one, by its path (slot.workers). */
export type FormFieldKey = SlotFormField | string;

/** The file keys the generated controls edit. */
const CONTROL_PATHS: ReadonlySet<string> = new Set(fileControls().map((control) => control.path));

const REQUEST_FIELDS: readonly SlotFormField[] = ['name', 'model', 'type', 'provider', 'device', 'port', 'ctx_size', 'profile', 'extra_args', 'env', 'enabled'];

const FILE_PATHS: Readonly<Record<string, SlotFormField>> = {
  'slot.name': 'name',
  'slot.port': 'port',
  'slot.type': 'type',
  'slot.device': 'device',
  'slot.provider': 'provider',
  'slot.profile': 'profile',
  'slot.enabled': 'enabled',
  'model.default': 'model',
  'model.context_size': 'ctx_size',
  'server.extra_args': 'extra_args',
  'server.env': 'env',
  // The request's shorthand for the device.
  hardware: 'device',
};

const CODE_FIELDS: Readonly<Record<string, SlotFormField>> = {
  'model.not_found': 'model',
  'slot.already_exists': 'name',
  'slot.no_free_port': 'port',
};

export interface PlacedProblems {
  fields: Partial<Record<FormFieldKey, string>>;
  /** Problems that name no field of this form, as "path: message". */
  unplaced: string[];
}

/** The form field a problem path names and what is left of the path ("env.LD_PRELOAD": env, "LD_PRELOAD"), or undefined. */
export function fieldOfPath(fullPath: string): { field: FormFieldKey; rest: string } | undefined {
  const path = fullPath.startsWith('file.') ? fullPath.slice('file.'.length) : fullPath;
  const control = path.split('.').slice(0, 2).join('.');
  if (CONTROL_PATHS.has(control)) return { field: control, rest: path.slice(control.length).replace(/^\./, '') };
  const under = (prefix: string) => path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);
  const rest = (prefix: string) => path.slice(prefix.length).replace(/^\./, '');
  // The file's paths first: "model.context_size" is the context size, not the request's model.
  const key = Object.keys(FILE_PATHS).find(under);
  if (key !== undefined) return { field: FILE_PATHS[key]!, rest: rest(key) };
  const field = REQUEST_FIELDS.find(under);
  return field === undefined ? undefined : { field, rest: rest(field) };
}

/** Place path → message problems (from zod or from the server) on the form's fields. */
export function placeProblems(problems: Readonly<Record<string, string>>): PlacedProblems {
  const placed: PlacedProblems = { fields: {}, unplaced: [] };
  for (const [path, message] of Object.entries(problems)) {
    const found = fieldOfPath(path);
    if (found === undefined) placed.unplaced.push(path ? `${path}: ${message}` : message);
    else placed.fields[found.field] ??= found.rest ? `${found.rest}: ${message}` : message;
  }
  return placed;
}

/** A refused submit's problems: details.problems of this slot's file (or of the request), or the code's field. */
export function placeError(error: unknown, slotFile: string): PlacedProblems {
  if (!(error instanceof ApiError)) return { fields: {}, unplaced: [] };
  const list = Array.isArray(error.details.problems) ? (error.details.problems as Array<{ path?: unknown; message?: unknown; file?: unknown }>) : [];
  const ours: Record<string, string> = {};
  const unplaced: string[] = [];
  for (const problem of list) {
    if (typeof problem.path !== 'string' || typeof problem.message !== 'string') continue;
    if (typeof problem.file === 'string' && problem.file !== slotFile) unplaced.push(`${problem.file}: ${problem.path}: ${problem.message}`);
    else ours[problem.path] ??= problem.message;
  }
  const placed = placeProblems(ours);
  const byCode = CODE_FIELDS[error.code];
  if (list.length === 0 && byCode !== undefined) placed.fields[byCode] = error.message;
  return { fields: placed.fields, unplaced: [...unplaced, ...placed.unplaced] };
}

/**
 * Variables a caller without host authority may not set (the server refuses them with
 * config.host_only): every name but the device and thread allowlist, and an allowlisted name
 * with another value than a device list or number, unless `kept` (the file's) has it as it is.
 */
export function hostOnlyEnvProblem(env: Readonly<Record<string, string>>, kept: Readonly<Record<string, string>> | null, hostAuthority: boolean): string | undefined {
  if (hostAuthority) return undefined;
  const names = hostOnlyEnvIn(env, kept);
  const badValue = names.find((name) => Object.hasOwn(LAN_ENV, name));
  if (badValue !== undefined) return `${badValue}: expected ${LAN_ENV[badValue]!.rule} (any other value needs this host or an admin token)`;
  return names.length === 0 ? undefined : `${names.join(', ')}: only device lists (CUDA_VISIBLE_DEVICES, …) and thread counts (OMP_NUM_THREADS, …) may be set without this host or an admin token`;
}
