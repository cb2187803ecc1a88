// The stacks a gateway knows: the built-in seeds (read-only) and the user's, in stacks.toml,
// as the running configuration has them; how a slug is looked up and when a new one is free.
import type { ResolvedConfig } from '../config/load.js';
import { StackSchema, type Stack } from '../config/schema/stacks.js';
import { SEED_STACKS } from '../config/seed-stacks.js';
import { validateDocument } from '../config/validate.js';
import { SvcError } from '../protocol/errors.js';
import type { StackPayload } from '../protocol/stacks.js';
import { own } from '../lib/own.js';

type Stacks = Pick<ResolvedConfig, 'stacks'>;

/** Words the stack routes use as path segments (/api/stacks/active, …): never a slug. */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set(['active', 'import', 'snapshot']);

/** A stack as the API shows it: a plain copy, with its slug and whether it is a seed. */
export function stackView(slug: string, stack: Stack, seed: boolean): StackPayload {
  return { slug, seed, ...JSON.parse(JSON.stringify(stack)) };
}

/** The seeds, then the user's stacks. */
export function allStacks(config: Stacks): StackPayload[] {
  return [
    ...Object.entries(SEED_STACKS).map(([slug, s]) => stackView(slug, s, true)),
    ...Object.entries(config.stacks.stack).map(([slug, s]) => stackView(slug, s, false)),
  ];
}

/** The stack `slug` names, or stacks.not_found listing the known slugs. */
export function findStack(config: Stacks, slug: string): { stack: Stack; seed: boolean } {
  if (Object.hasOwn(SEED_STACKS, slug)) return { stack: SEED_STACKS[slug]!, seed: true };
  const stack = own(config.stacks.stack, slug);
  if (!stack) throw new SvcError('stacks.not_found', `no stack ${slug}: not built in and not in stacks.toml`, { stack: slug, known: allStacks(config).map((s) => s.slug) });
  return { stack, seed: false };
}

/** Refuse a slug a new stack cannot take: a reserved word, a seed's or an existing stack's. */
export function refuseTakenSlug(config: Stacks, slug: string): void {
  if (RESERVED_SLUGS.has(slug)) throw new SvcError('stacks.invalid_name', `"${slug}" is a word the stack routes use; pick another slug`, { stack: slug, reserved: [...RESERVED_SLUGS] });
  if (Object.hasOwn(SEED_STACKS, slug) || own(config.stacks.stack, slug)) throw new SvcError('stacks.exists', `a stack ${slug} exists; pick another slug`, { stack: slug });
}

/** A stack checked against stacks.toml's schema (defaults filled in), or stacks.bad_envelope naming each problem. */
export function parseStack(value: unknown, label: string): Stack {
  const result = validateDocument(StackSchema, value, label);
  if (!result.value) throw new SvcError('stacks.bad_envelope', `${label} is not a valid stack: ${result.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, { problems: result.problems.map(({ path, message }) => ({ path, message })) });
  return result.value;
}

/** Every model a stack names, its capability rows' included, once each. */
export function modelIdsOf(stack: Stack): string[] {
  return [...new Set(stack.slots.flatMap((row) => [row.model, ...row.capabilities.map((c) => c.model)]))];
}
