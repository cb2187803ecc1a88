// The slot form's state: its values, the zod check as the user types (the server's own
// request schema, run on the body the form would send), and the server's problems after a
// submit, each cleared once its field is edited. The browser's problems show for fields the
// user touched, and for all of them once a submit was tried.
import { useMemo, useState } from 'react';
import { CreateSlotRequestSchema, EditSlotRequestSchema } from '../../../../src/protocol/slot-requests.js';
import { problemsOfIssues } from '../../field-problems.js';
import { loaderEnvProblem, placeError, placeProblems, type PlacedProblems } from './form-problems.js';
import { createBody, editBody, parseEnv, type SlotFormField, type SlotFormValues } from './form-values.js';

export interface SlotForm {
  values: SlotFormValues;
  set<F extends SlotFormField>(field: F, value: SlotFormValues[F]): void;
  /** The problem shown beside each field now. */
  problem(field: SlotFormField): string | undefined;
  /** Problems that name no field, shown at the top. */
  unplaced: string[];
  /** Whether the browser finds nothing wrong (the submit is still the server's to judge). */
  valid: boolean;
  body(): unknown;
  /** After a refused submit: its problems beside their fields. */
  refused(error: unknown): void;
  tried(): void;
}

function browserProblems(values: SlotFormValues, initial: SlotFormValues | null, hostAuthority: boolean): PlacedProblems {
  const body = initial === null ? createBody(values) : editBody(initial, values);
  const parsed = initial === null ? CreateSlotRequestSchema.safeParse(body) : EditSlotRequestSchema.safeParse(body);
  const placed = placeProblems(parsed.success ? {} : problemsOfIssues(parsed.error.issues));
  const env = parseEnv(values.env);
  const envProblem = env.problems[0] ?? loaderEnvProblem(env.env, hostAuthority);
  if (envProblem !== undefined) placed.fields.env ??= envProblem;
  return placed;
}

/** `initial`: the slot file's values when editing, null when creating; `slotFile` "" when creating. */
export function useSlotForm(start: SlotFormValues, initial: SlotFormValues | null, slotFile: string, hostAuthority: boolean): SlotForm {
  const [values, setValues] = useState(start);
  const [touched, setTouched] = useState<ReadonlySet<SlotFormField>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [server, setServer] = useState<PlacedProblems>({ fields: {}, unplaced: [] });
  const browser = useMemo(() => browserProblems(values, initial, hostAuthority), [values, initial, hostAuthority]);
  return {
    values,
    set(field, value) {
      setValues((old) => ({ ...old, [field]: value }));
      setTouched((old) => new Set(old).add(field));
      setServer((old) => ({ ...old, fields: { ...old.fields, [field]: undefined } }));
    },
    problem: (field) => server.fields[field] ?? (submitted || touched.has(field) ? browser.fields[field] : undefined),
    unplaced: [...server.unplaced, ...(submitted ? browser.unplaced : [])],
    valid: Object.keys(browser.fields).length === 0 && browser.unplaced.length === 0,
    body: () => (initial === null ? createBody(values) : editBody(initial, values)),
    // A new slot's file is named after it.
    refused: (error) => setServer(placeError(error, slotFile || `slots/${values.name.trim()}.toml`)),
    tried: () => setSubmitted(true),
  };
}
