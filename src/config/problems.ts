// A configuration problem names the file, the field path and what was expected, e.g.
//   slots/chat.toml: slot.device: expected one of gpu-rocm, gpu-vulkan, gpu-cuda, cpu, npu; got "gpu"
// Loaders collect every problem in one pass; errors stop the server, warnings do not.
import type { z } from 'zod';

export interface ConfigProblem {
  /** Path relative to the config root (or "environment" for SVC_* variables). */
  readonly file: string;
  /** Dotted field path inside the file; "" for the whole file. */
  readonly path: string;
  readonly message: string;
  readonly severity: 'error' | 'warning';
}

export function formatProblem(p: ConfigProblem): string {
  const where = p.path ? `${p.file}: ${p.path}` : p.file;
  return `${where}: ${p.severity === 'warning' ? 'warning: ' : ''}${p.message}`;
}

export const errorsOf = (problems: readonly ConfigProblem[]) => problems.filter((p) => p.severity === 'error');
export const warningsOf = (problems: readonly ConfigProblem[]) => problems.filter((p) => p.severity === 'warning');

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
  if (typeof value === 'string') return JSON.stringify(value);
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

/** The message part of a problem, in our words rather than the validator's. */
export function describeIssue(issue: Issue): string {
  const got = `got ${describeValue(issue.input)}`;
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

/** Closest known name within two edits, for "did you mean" hints on unknown keys. */
export function suggest(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}
