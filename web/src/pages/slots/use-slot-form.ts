// The slot form's state: its values (the form's own fields, and a text for every other key of
// the slot file), the zod check as the user types (the server's own request schema on the
// body the form would send; each file key's own schema from the slot file schema), and the
// server's problems after a submit, each cleared once its field is edited. The browser's
// problems show for fields the user touched, and for all of them once a submit was tried.
import { useMemo, useState } from 'react';
import { CreateSlotRequestSchema, EditSlotRequestSchema, type SlotFilePatch } from '../../../../src/protocol/slot-requests.js';
import { problemsOfIssues } from '../../field-problems.js';
import { fileControls, filePatchOf, fileProblem } from './file-fields.js';
import { hostOnlyEnvProblem, placeError, placeProblems, type FormFieldKey, type PlacedProblems } from './form-problems.js';
import { createBody, editBody, parseEnv, type SlotFormField, type SlotFormValues } from './form-values.js';

export const FILE_CONTROLS = fileControls();

export interface SlotForm {
  values: SlotFormValues;
  fileValues: Readonly<Record<string, string>>;
  set<F extends SlotFormField>(field: F, value: SlotFormValues[F]): void;
  /** A slot file key without a field of its own, by its path (slot.workers). */
  setFile(path: string, text: string): void;
  /** The problem shown beside each field now. */
  problem(field: FormFieldKey): string | undefined;
  /** Problems that name no field, shown at the top. */
  unplaced: string[];
  /** Whether the browser finds nothing wrong (the submit is still the server's to judge). */
  valid: boolean;
  body(): unknown;
  /** After a refused submit: its problems beside their fields. */
  refused(error: unknown): void;
  tried(): void;
}

/** The form's own `file` keys (a cleared profile, …) with the generated controls' changes laid over them. */
function mergeFile(own: SlotFilePatch | undefined, controls: SlotFilePatch | undefined): SlotFilePatch | undefined {
  if (!own || !controls) return own ?? controls;
  const out: Record<string, Record<string, unknown>> = { ...own };
  for (const [section, table] of Object.entries(controls)) out[section] = { ...out[section], ...table };
  return out as SlotFilePatch;
}

function bodyOf(values: SlotFormValues, initial: SlotFormValues | null, fileStart: Readonly<Record<string, string>>, fileValues: Readonly<Record<string, string>>) {
  const body = initial === null ? createBody(values) : editBody(initial, values);
  const file = mergeFile(body.file, filePatchOf(FILE_CONTROLS, fileStart, fileValues));
  return { ...body, ...(file && { file }) };
}

function browserProblems(body: unknown, initial: SlotFormValues | null, values: SlotFormValues, fileValues: Readonly<Record<string, string>>, hostAuthority: boolean): PlacedProblems {
  const parsed = initial !== null ? EditSlotRequestSchema.safeParse(body) : CreateSlotRequestSchema.safeParse(body);
  const placed = placeProblems(parsed.success ? {} : problemsOfIssues(parsed.error.issues));
  const env = parseEnv(values.env);
  const envProblem = env.problems[0] ?? hostOnlyEnvProblem(env.env, initial && parseEnv(initial.env).env, hostAuthority);
  if (envProblem !== undefined) placed.fields.env ??= envProblem;
  for (const control of FILE_CONTROLS) {
    const problem = fileProblem(control, fileValues[control.path] ?? '');
    if (problem !== undefined) placed.fields[control.path] = problem;
  }
  return placed;
}

/** `initial`: the form's values when editing, null when creating; `fileStart`: the file keys' texts then; `slotFile` "" when creating. */
export function useSlotForm(start: SlotFormValues, initial: SlotFormValues | null, fileStart: Readonly<Record<string, string>>, slotFile: string, hostAuthority: boolean): SlotForm {
  const [values, setValues] = useState(start);
  const [fileValues, setFileValues] = useState(fileStart);
  const [touched, setTouched] = useState<ReadonlySet<FormFieldKey>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [server, setServer] = useState<PlacedProblems>({ fields: {}, unplaced: [] });
  const body = useMemo(() => bodyOf(values, initial, fileStart, fileValues), [values, initial, fileStart, fileValues]);
  const browser = useMemo(() => browserProblems(body, initial, values, fileValues, hostAuthority), [body, initial, values, fileValues, hostAuthority]);
  const edited = (field: FormFieldKey) => {
    setTouched((old) => new Set(old).add(field));
    setServer((old) => ({ ...old, fields: { ...old.fields, [field]: undefined } }));
  };
  return {
    values,
    fileValues,
    set(field, value) {
      setValues((old) => ({ ...old, [field]: value }));
      edited(field);
    },
    setFile(path, text) {
      setFileValues((old) => ({ ...old, [path]: text }));
      edited(path);
    },
    problem: (field) => server.fields[field] ?? (submitted || touched.has(field) ? browser.fields[field] : undefined),
    unplaced: [...server.unplaced, ...(submitted ? browser.unplaced : [])],
    valid: Object.keys(browser.fields).length === 0 && browser.unplaced.length === 0,
    body: () => body,
    // A new slot's file is named after it.
    refused: (error) => setServer(placeError(error, slotFile || `slots/${values.name.trim()}.toml`)),
    tried: () => setSubmitted(true),
  };
}
