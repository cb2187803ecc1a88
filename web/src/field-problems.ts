// Field problems, one message per dotted path, from either side: the server's
// `details.problems` (request.invalid, config errors) or a zod parse in the browser, so a
// form shows both the same way, beside the field they name.
import { describeIssueWithoutInput, type FieldProblem, joinPath } from '../../src/protocol/issues.js';
import type { z } from 'zod';
import { ApiError } from './api-error.js';

export type Problems = Record<string, string>;

/** `details.problems` of an API error, keyed by path ("" for the whole request). */
export function problemsOfError(error: unknown): Problems {
  if (!(error instanceof ApiError)) return {};
  const list = error.details.problems;
  if (!Array.isArray(list)) return {};
  const out: Problems = {};
  for (const item of list as FieldProblem[]) {
    if (typeof item?.path === 'string' && typeof item.message === 'string') out[item.path] ??= item.message;
  }
  return out;
}

/** The issues of a failed zod safeParse, keyed the way the server keys them (a.b[0].c), in the server's words. */
export function problemsOfIssues(issues: ReadonlyArray<z.core.$ZodIssue>): Problems {
  const out: Problems = {};
  for (const issue of issues) {
    out[joinPath(issue.path)] ??= describeIssueWithoutInput(issue);
  }
  return out;
}

/** The problem at `path` or under it (a.b for a.b.c), for a field that edits a whole object. */
export function problemAt(problems: Problems, path: string): string | undefined {
  if (problems[path]) return problems[path];
  const key = Object.keys(problems).find((p) => p.startsWith(`${path}.`) || p.startsWith(`${path}[`));
  return key === undefined ? undefined : `${key.slice(path.length + 1) || key}: ${problems[key]}`;
}
