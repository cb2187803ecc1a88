// One svc.toml key's edit, checked as the user types against the schema's description of
// it (type, bounds, enum, nullable), with the server's wording ("expected >= 0; got -1"),
// so the problem beside a field reads the same before and after a save. The server still
// validates the whole file (cross-field rules such as the port range) on PUT.
import type { SettingDescription } from '../../../../src/protocol/settings-wire.js';

/** What a control holds: a checkbox's state, or the text of an input (one line per array item). */
export type Draft = string | boolean;

export type Checked = { ok: true; value: unknown } | { ok: false; problem: string };

type Describes = Pick<SettingDescription, 'type' | 'nullable' | 'minimum' | 'maximum' | 'exclusive_minimum' | 'enum'>;

/** The draft a control starts from for a value. */
export function draftOf(description: Describes, value: unknown): Draft {
  switch (description.type) {
    case 'boolean':
      return value === true;
    case 'integer':
    case 'number':
    case 'string':
      return value === null || value === undefined ? '' : String(value);
    default:
      if (description.type.startsWith('array<')) return Array.isArray(value) ? value.join('\n') : '';
      return JSON.stringify(value ?? null);
  }
}

/** The check of one key: a draft in, its value or the problem out. */
export function checkFor(description: Describes): (draft: Draft) => Checked {
  const { type } = description;
  if (type === 'boolean') return (draft) => (typeof draft === 'boolean' ? { ok: true, value: draft } : { ok: false, problem: 'expected true or false' });
  if (type === 'integer' || type === 'number') return (draft) => checkNumber(description, String(draft));
  if (type === 'string') return (draft) => checkString(description, String(draft));
  if (type.startsWith('array<')) return (draft) => ({ ok: true, value: String(draft).split('\n').map((line) => line.trim()).filter(Boolean) });
  return (draft) => {
    try {
      return { ok: true, value: JSON.parse(String(draft)) as unknown };
    } catch {
      return { ok: false, problem: 'expected JSON' };
    }
  };
}

function checkNumber(description: Describes, text: string): Checked {
  const trimmed = text.trim();
  const integer = description.type === 'integer';
  if (trimmed === '') return description.nullable ? { ok: true, value: null } : { ok: false, problem: `expected ${integer ? 'an integer' : 'a number'}` };
  const value = Number(trimmed);
  if (!Number.isFinite(value)) return { ok: false, problem: `expected ${integer ? 'an integer' : 'a number'}; got "${trimmed}"` };
  if (integer && !Number.isInteger(value)) return { ok: false, problem: `expected an integer; got ${value}` };
  const { minimum, maximum, exclusive_minimum: above } = description;
  if (minimum !== undefined && value < minimum) return { ok: false, problem: `expected >= ${minimum}; got ${value}` };
  if (above !== undefined && value <= above) return { ok: false, problem: `expected > ${above}; got ${value}` };
  if (maximum !== undefined && value > maximum) return { ok: false, problem: `expected <= ${maximum}; got ${value}` };
  return { ok: true, value };
}

function checkString(description: Describes, text: string): Checked {
  if (description.enum && !description.enum.includes(text)) {
    return { ok: false, problem: `expected one of ${description.enum.join(', ')}; got "${text}"` };
  }
  return { ok: true, value: text };
}

/** The bounds of a key in words ("0 to 3600", "> 0"), or "" when it has none. */
export function boundsOf(description: Describes): string {
  const { minimum, maximum, exclusive_minimum: above } = description;
  if (minimum !== undefined && maximum !== undefined) return `${minimum} to ${maximum}`;
  if (minimum !== undefined) return `>= ${minimum}`;
  if (above !== undefined) return maximum !== undefined ? `> ${above}, <= ${maximum}` : `> ${above}`;
  if (maximum !== undefined) return `<= ${maximum}`;
  if (description.enum) return `one of ${description.enum.join(', ')}`;
  return '';
}
