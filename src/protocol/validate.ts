// Request bodies are validated by zod schemas kept in this folder, so the server, the CLI
// and the dashboard share one definition of each payload. One function turns a schema's
// verdict into the typed value, or into request.invalid listing every problem with its
// field path (unknown fields included, with a "did you mean" when one is close).
import type { z } from 'zod';
import { RequestError } from './errors.js';
import { boundProblems, clip, listProblems } from './input-bounds.js';
import { describeIssue, joinPath, type FieldProblem } from './issues.js';
import { suggest } from './near-matches.js';

/** The problems of one issue; an unknown-keys issue is one problem per key. */
function problemsOf(issue: z.core.$ZodIssue, known: (path: readonly PropertyKey[]) => string[]): FieldProblem[] {
  if (issue.code !== 'unrecognized_keys') return [{ path: joinPath(issue.path), message: describeIssue(issue) }];
  const expected = known(issue.path);
  return issue.keys.map((key) => {
    const hint = suggest(key, expected);
    return { path: joinPath([...issue.path, key]), message: `unknown field${hint ? ` (did you mean "${hint}"?)` : ''}; expected ${expected.join(', ')}` };
  });
}

/** The keys an object schema declares at a path (through optional/default wrappers). */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let node = schema as unknown as { _zod?: { def: { type: string; innerType?: unknown; shape?: Record<string, unknown> } } } | undefined;
  const segments = [...path];
  for (let guard = 0; guard < 32 && node?._zod; guard++) {
    const def = node._zod.def;
    if (def.type !== 'object') {
      node = def.innerType as typeof node;
      continue;
    }
    if (segments.length === 0) return Object.keys(def.shape ?? {});
    node = def.shape?.[String(segments.shift())] as typeof node;
  }
  return [];
}

/** `value` checked against `schema`: the typed result, or request.invalid naming every problem. */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown, what = 'body'): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const problems = result.error.issues.flatMap((issue) => problemsOf(issue, (path) => keysAt(schema, path)));
  const list = listProblems(problems, (p) => (p.path ? `${clip(p.path)}: ${p.message}` : p.message));
  throw new RequestError('request.invalid', `invalid ${what}: ${list}`, boundProblems(problems));
}
