// stacks.toml written by the API: put or remove one `[stack.<slug>]` table, validate the
// whole file and write it atomically. The seeds never change.
import { join } from 'node:path';
import { ConfigError, SvcError } from '../protocol/errors.js';
import { writeFileAtomic } from './atomic.js';
import type { SvcPaths } from './paths.js';
import { errorsOf, formatProblem } from './problems.js';
import { StacksFileSchema, type Stack, type StacksFile } from './schema/stacks.js';
import { SEED_STACKS } from './seed-stacks.js';
import { readTomlFile, stringifyToml, type TomlDoc } from './toml.js';
import { validateDocument } from './validate.js';

export const stacksTomlOf = (paths: Pick<SvcPaths, 'configRoot'>) => join(paths.configRoot, 'stacks.toml');

export function stackSeedImmutable(slug: string): SvcError {
  return new SvcError('stacks.seed_immutable', `"${slug}" is a built-in stack and cannot be changed; export it (svc stack export ${slug}) and import the copy under a new slug, or snapshot your slots`, { stack: slug });
}

/** Put (or, with null, remove) `[stack.<slug>]`; the caller holds the one-writer queue. */
export async function writeStack(paths: Pick<SvcPaths, 'configRoot'>, slug: string, stack: Stack | null): Promise<StacksFile> {
  if (Object.hasOwn(SEED_STACKS, slug)) throw stackSeedImmutable(slug);
  const file = stacksTomlOf(paths);
  const read = await readTomlFile(file, 'stacks.toml');
  if (read.status === 'invalid') throw invalid([read.problem]);
  const doc: TomlDoc = read.status === 'ok' ? read.doc : {};
  const stacks = { ...((doc.stack as TomlDoc | undefined) ?? {}) };
  if (stack === null) delete stacks[slug];
  else stacks[slug] = JSON.parse(JSON.stringify(stack)) as TomlDoc;
  const next = { ...doc, stack: stacks };
  const checked = validateDocument(StacksFileSchema, next, 'stacks.toml');
  const problems = errorsOf(checked.problems);
  if (!checked.value || problems.length > 0) throw invalid(problems);
  await writeFileAtomic(file, stringifyToml(stripNulls(next) as TomlDoc));
  return checked.value;
}

/** TOML has no null: a null field is written as absent (its default). */
function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNulls);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, stripNulls(v)]));
  return value;
}

function invalid(problems: ReturnType<typeof errorsOf>): ConfigError {
  return new ConfigError('config.invalid', `stacks.toml not changed: ${problems.map(formatProblem).join('; ')}`, {
    problems: problems.map(({ file, path, message }) => ({ file, path, message })),
  });
}
