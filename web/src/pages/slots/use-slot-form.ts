// The slot form's state: its values (the form's own fields, and a text for every other key of
// the slot file), the zod check as the user types (the server's own request schema on the
// body the form would send; each file key's own schema from the slot file schema), and the
// server's problems after a submit, each cleared once its field is edited. The browser's
// problems show for fields the user touched, and for all of them once a submit was tried.
// Only the keys the slot uses are shown, checked and sent (field-use.ts).
import { useMemo, useState } from 'react';
import { CreateSlotRequestSchema, EditSlotRequestSchema, type SlotFilePatch } from '../../../../src/protocol/slot-requests.js';
import { problemsOfIssues } from '../../field-problems.js';
import { contextUsed, shownControls, type SlotFacts } from './field-use.js';
import { fileControls, filePatchOf, fileProblem, type FileControl } from './file-fields.js';
import { hostOnlyEnvProblem, placeError, placeProblems, type FormFieldKey, type PlacedProblems } from './form-problems.js';
import { createBody, editBody, parseEnv, type SlotFormField, type SlotFormValues } from './form-values.js';

export const FILE_CONTROLS = fileControls();

export interface SlotForm {
  values: SlotFormValues;
  fileValues: Readonly<Record<string, string>>;
  /** The slot file keys shown: those this slot's type, device and engine use (and any its file sets). */
  controls: readonly FileControl[];
  /** Whether the context size field is shown. */
  contextShown: boolean;
  set<F extends SlotFormField>(field: F, value: SlotFormValues[F]): void;
  /** A slot file key without a field of its own, by its path (slot.workers). */
  setFile(path: string, text: string): void;
  /** The problem shown beside each field now. */
  problem(field: FormFieldKey): string | undefined;
  /** Problems that name no field, shown at the top. */
  unplaced: string[];
  /** Every field's problem shown now, for the summary at the top (after a submit was tried). */
  listed: Array<[FormFieldKey, string]>;
  /** Whether a submit was tried: the summary shows from then on. */
  submitted: boolean;
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

interface Shown {
  controls: readonly FileControl[];
  context: boolean;
}

function bodyOf(values: SlotFormValues, initial: SlotFormValues | null, fileStart: Readonly<Record<string, string>>, fileValues: Readonly<Record<string, string>>, shown: Shown) {
  // A context size typed before the type changed to one without a context is not sent.
  const own = shown.context ? values : { ...values, ctx_size: initial?.ctx_size ?? '' };
  const body = initial === null ? createBody(own) : editBody(initial, own);
  const file = mergeFile(body.file, filePatchOf(shown.controls, fileStart, fileValues));
  return { ...body, ...(file && { file }) };
}

function browserProblems(body: unknown, initial: SlotFormValues | null, values: SlotFormValues, fileValues: Readonly<Record<string, string>>, hostAuthority: boolean, controls: readonly FileControl[]): PlacedProblems {
  const parsed = initial !== null ? EditSlotRequestSchema.safeParse(body) : CreateSlotRequestSchema.safeParse(body);
  const placed = placeProblems(parsed.success ? {} : problemsOfIssues(parsed.error.issues));
  const env = parseEnv(values.env);
  const envProblem = env.problems[0] ?? hostOnlyEnvProblem(env.env, initial && parseEnv(initial.env).env, hostAuthority);
  if (envProblem !== undefined) placed.fields.env ??= envProblem;
  for (const control of controls) {
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
  const shown = useMemo<Shown>(() => {
    const facts: SlotFacts = { type: values.type, device: values.device, provider: values.provider };
    return { controls: shownControls(FILE_CONTROLS, facts, fileStart), context: contextUsed(facts) || (initial?.ctx_size ?? '') !== '' };
  }, [values.type, values.device, values.provider, fileStart, initial]);
  const body = useMemo(() => bodyOf(values, initial, fileStart, fileValues, shown), [values, initial, fileStart, fileValues, shown]);
  const browser = useMemo(() => browserProblems(body, initial, values, fileValues, hostAuthority, shown.controls), [body, initial, values, fileValues, hostAuthority, shown]);
  const problem = (field: FormFieldKey) => server.fields[field] ?? (submitted || touched.has(field) ? browser.fields[field] : undefined);
  const edited = (field: FormFieldKey) => {
    setTouched((old) => new Set(old).add(field));
    setServer((old) => ({ ...old, fields: { ...old.fields, [field]: undefined } }));
  };
  return {
    values,
    fileValues,
    controls: shown.controls,
    contextShown: shown.context,
    set(field, value) {
      setValues((old) => ({ ...old, [field]: value }));
      edited(field);
    },
    setFile(path, text) {
      setFileValues((old) => ({ ...old, [path]: text }));
      edited(path);
    },
    problem,
    listed: [...new Set([...Object.keys(server.fields), ...(submitted ? Object.keys(browser.fields) : [])])].flatMap((field) => {
      const shownProblem = problem(field);
      return shownProblem === undefined ? [] : [[field, shownProblem] as [FormFieldKey, string]];
    }),
    submitted,
    unplaced: [...server.unplaced, ...(submitted ? browser.unplaced : [])],
    valid: Object.keys(browser.fields).length === 0 && browser.unplaced.length === 0,
    body: () => body,
    // A new slot's file is named after it.
    refused: (error) => setServer(placeError(error, slotFile || `slots/${values.name.trim()}.toml`)),
    tried: () => setSubmitted(true),
  };
}
