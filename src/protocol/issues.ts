// Validation problems in our words rather than the validator's, for config files and
// request bodies alike: `<path>: expected one of a, b; got "c"`. A problem is a field path
// and a message; config problems add the file and a severity (src/config/problems.ts).
import type { z } from 'zod';
import { clip } from './input-bounds.js';

export interface FieldProblem {
  /** Dotted field path ("" for the whole value), e.g. `slot.device`, `messages[0].role`. */
  path: string;
  message: string;
}

export function joinPath(segments: readonly PropertyKey[]): string {
  return segments
    .map((s) => (typeof s === 'number' ? `[${s}]` : String(s)))
    .join('.')
    .replace(/\.\[/g, '[');
}

/** How a value reads in a message: strings quoted, containers named. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(clip(value));
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return `a date (${value.toISOString()})`;
  if (typeof value === 'object') return 'a table';
  return String(value);
}

const TYPE_NAMES: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'a table',
  record: 'a table',
  array: 'an array',
  null: 'null',
};

type Issue = z.core.$ZodIssue & { input?: unknown };

function bound(kind: 'min' | 'max', issue: { origin?: string; inclusive?: boolean }, limit: unknown): string {
  const n = Number(limit);
  switch (issue.origin) {
    case 'string':
      return kind === 'min' ? `at least ${n} characters` : `at most ${n} characters`;
    case 'array':
    case 'set':
      return kind === 'min' ? `at least ${n} items` : `at most ${n} items`;
    default: {
      const op = kind === 'min' ? (issue.inclusive === false ? '>' : '>=') : issue.inclusive === false ? '<' : '<=';
      return `${op} ${n}`;
    }
  }
}

/** zod's own wording (its default messages), which a problem gets in ours instead. */
const ZOD_DEFAULT = /^(Too big|Too small|Invalid input|Invalid option)\b/;

/** A message the schema itself gives (`.max(8200, { error: '…' })`): kept, it says more than a bound. */
const ownMessage = (issue: Issue): string | undefined => (issue.message && !ZOD_DEFAULT.test(issue.message) ? issue.message : undefined);

/**
 * A problem's message where the value is not at hand (a browser form's own parse, which does
 * not report the input): a bound in our words, or the schema's own message, never zod's
 * "Too big: expected number to be <=65535".
 */
export function describeIssueWithoutInput(issue: Issue): string {
  if (issue.code === 'too_small') return ownMessage(issue) ?? `expected ${bound('min', issue, issue.minimum)}`;
  if (issue.code === 'too_big') return ownMessage(issue) ?? `expected ${bound('max', issue, issue.maximum)}`;
  return issue.message;
}

/** The message part of a problem. */
export function describeIssue(issue: Issue): string {
  const got = `got ${describeValue(issue.input)}`;
  if ((issue.code === 'too_small' || issue.code === 'too_big') && ownMessage(issue)) return `${ownMessage(issue)}; ${got}`;
  switch (issue.code) {
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => String(v)).join(', ')}; ${got}`;
    case 'invalid_type':
      if (issue.input === undefined) return `required (${TYPE_NAMES[issue.expected] ?? issue.expected})`;
      return `expected ${TYPE_NAMES[issue.expected] ?? issue.expected}; ${got}`;
    case 'too_small':
      return `expected ${bound('min', issue, issue.minimum)}; ${got}`;
    case 'too_big':
      return `expected ${bound('max', issue, issue.maximum)}; ${got}`;
    case 'invalid_key':
      return `invalid key: ${issue.issues.map((i) => describeIssue(i as Issue)).join('; ')}`;
    case 'invalid_union':
      return `${issue.message}; ${got}`;
    default:
      return issue.message.startsWith('expected') ? `${issue.message}; ${got}` : issue.message;
  }
}
