// Validate one parsed document against its schema, collecting every problem at once.
// Unknown keys are warnings, not errors: they survive read-modify-write and a newer svc
// may have written them; the warning says so, with a "did you mean" when one is close.
import type { z } from 'zod';
import type { ConfigProblem } from './problems.js';
import { describeIssue, joinPath, suggest } from './problems.js';

export interface Validated<T> {
  /** The typed value with defaults filled in; absent when any error was found. */
  readonly value?: T;
  readonly problems: ConfigProblem[];
}

type Doc = Record<string, unknown>;

export function validateDocument<S extends z.ZodType>(schema: S, raw: unknown, file: string): Validated<z.output<S>> {
  const first = schema.safeParse(raw, { reportInput: true });
  if (first.success) return { value: first.data, problems: [] };

  const problems: ConfigProblem[] = [];
  const unknownKeyPaths: PropertyKey[][] = [];
  for (const issue of first.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(schema, issue.path);
      for (const key of issue.keys) {
        const hint = suggest(key, known);
        unknownKeyPaths.push([...issue.path, key]);
        problems.push({
          file,
          path: joinPath([...issue.path, key]),
          message: `unknown key, kept but not used${hint ? ` (did you mean "${hint}"?)` : ''}`,
          severity: 'warning',
        });
      }
      continue;
    }
    problems.push({ file, path: joinPath(issue.path), message: describeIssue(issue), severity: 'error' });
  }
  if (problems.some((p) => p.severity === 'error')) return { problems };

  // Only unknown keys: validate again without them to get the typed value.
  const cleaned = structuredClone(raw) as Doc;
  for (const path of unknownKeyPaths) deleteAt(cleaned, path);
  const second = schema.safeParse(cleaned);
  if (!second.success) {
    return { problems: [...problems, ...second.error.issues.map((i) => ({ file, path: joinPath(i.path), message: describeIssue(i), severity: 'error' as const }))] };
  }
  return { value: second.data, problems };
}

function deleteAt(doc: Doc, path: readonly PropertyKey[]): void {
  let node: unknown = doc;
  for (const segment of path.slice(0, -1)) node = (node as Doc | undefined)?.[segment as string];
  if (node && typeof node === 'object') delete (node as Doc)[path[path.length - 1] as string];
}

/** The keys an object schema declares at a path, for suggestions. */
function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let node: unknown = schema;
  for (const segment of path) {
    node = objectShape(node)?.[segment as string];
    if (!node) return [];
  }
  return Object.keys(objectShape(node) ?? {});
}

function objectShape(schema: unknown): Record<string, unknown> | undefined {
  let node = schema as { _zod?: { def: { type: string; innerType?: unknown; shape?: Record<string, unknown> } } } | undefined;
  // Unwrap default/prefault/optional/nullable wrappers down to the object.
  for (let i = 0; i < 8 && node?._zod; i++) {
    const def = node._zod.def;
    if (def.type === 'object') return def.shape;
    node = def.innerType as typeof node;
  }
  return undefined;
}
