// A profile form's values and the request bodies they become, checked as the user types
// against the server's own zod schemas; the server's problems (at profiles.<name>.<field>
// for a config check, at <field> for a request check) land beside the same fields.
import { CreateProfileRequestSchema, UpdateProfileRequestSchema, type CreateProfileRequest, type ProfilePayload, type UpdateProfileRequest } from '../../../../src/protocol/profiles.js';
import { problemsOfError, problemsOfIssues, type Problems } from '../../field-problems.js';

export interface ProfileForm {
  name: string;
  image: string;
  device_class: ProfilePayload['device_class'];
  flags: string;
  mtp: boolean;
  /** "" for none (only a gpu profile has one). */
  backend: '' | NonNullable<ProfilePayload['backend']>;
  intent: string;
  quant: string;
}

export const EMPTY_FORM: ProfileForm = { name: '', image: '', device_class: 'cpu', flags: '', mtp: false, backend: '', intent: '', quant: '' };

export function formOf(profile: ProfilePayload): ProfileForm {
  const { name, image, device_class, flags, mtp, backend, intent, quant } = profile;
  return { name, image, device_class, flags, mtp, backend: backend ?? '', intent, quant };
}

export function createBody(form: ProfileForm): CreateProfileRequest {
  const { backend, ...rest } = form;
  return { ...rest, backend: backend === '' ? null : backend };
}

/** Only the fields that differ from the profile as it is. */
export function updateBody(form: ProfileForm, original: ProfilePayload): UpdateProfileRequest {
  const wanted = createBody(form);
  const body: Record<string, unknown> = {};
  for (const key of ['image', 'device_class', 'flags', 'mtp', 'backend', 'intent', 'quant'] as const) {
    if (wanted[key] !== original[key]) body[key] = wanted[key];
  }
  return body as UpdateProfileRequest;
}

/** The browser-side check: the same schema the route parses the body with. */
export function checkForm(form: ProfileForm, original: ProfilePayload | undefined): Problems {
  const parsed = original ? UpdateProfileRequestSchema.safeParse(updateBody(form, original)) : CreateProfileRequestSchema.safeParse(createBody(form));
  return parsed.success ? {} : problemsOfIssues(parsed.error.issues);
}

/** The server's problems keyed by form field: `profiles.<name>.flags` and `flags` both become `flags`. */
export function serverProblems(error: unknown, name: string): Problems {
  const out: Problems = {};
  const prefix = `profiles.${name}.`;
  for (const [path, message] of Object.entries(problemsOfError(error))) {
    const field = path.startsWith(prefix) ? path.slice(prefix.length) : path;
    out[field] ??= message;
  }
  return out;
}
