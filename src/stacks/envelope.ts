// The portable form of a stack (GET /api/stacks/<slug>/export, POST /api/stacks/import): the
// stack, the user profiles its rows name and what this gateway's registry knows of its models,
// wrapped with a kind, a schema version and a checksum over the canonical JSON of the rest, so
// that an envelope edited after export is refused rather than half trusted.
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { ResolvedConfig } from '../config/load.js';
import { SEED_PROFILES } from '../config/profiles.js';
import { ProfileSchema, type Profile } from '../config/schema/profiles.js';
import type { Stack } from '../config/schema/stacks.js';
import { canonicalJson } from '../protocol/canonical-json.js';
import { SvcError } from '../protocol/errors.js';
import { STACK_ENVELOPE_KIND, STACK_ENVELOPE_VERSION, type StackEnvelopePayload, type StackModelReport } from '../protocol/stacks.js';
import { modelIdsOf, parseStack, refuseTakenSlug } from './catalogue.js';
import { own } from '../lib/own.js';

/** The wire shape (src/protocol/stacks.ts), so a changed envelope breaks the dashboard's typecheck. */
export type StackEnvelope = StackEnvelopePayload;

/** What an import takes from a checked envelope. */
export interface ImportedStack {
  slug: string;
  stack: Stack;
  /** Every profile the envelope carried, checked, by name. */
  profiles: Array<[string, Profile]>;
  /** Those of them this gateway has no profile of the same name for: the ones to add. */
  added: Array<[string, Profile]>;
  /** What the exporting gateway's registry knew of each model (a repo to pull it from). */
  models: Record<string, { hf_repo?: unknown }>;
}

const SLUG = /^[a-z0-9][a-z0-9_-]{0,31}$/;

export function checksumOf(body: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(body)).digest('hex')}`;
}

export function exportEnvelope(config: Pick<ResolvedConfig, 'profiles' | 'registry'>, slug: string, stack: Stack, svcVersion: string, now = new Date()): StackEnvelope {
  // Seeds travel by name: every gateway has them.
  const profiles: Record<string, Profile> = {};
  for (const { profile: name } of stack.slots) {
    if (name && !Object.hasOwn(SEED_PROFILES, name) && own(config.profiles.profiles, name)) profiles[name] = own(config.profiles.profiles, name)!;
  }
  // Where to get each model, never a host path (the importing host has its own store).
  const models: Record<string, unknown> = {};
  for (const id of modelIdsOf(stack)) {
    const entry = own(config.registry.models, id);
    if (entry) models[id] = { id, name: entry.name, hf_repo: entry.hf_repo, hf_filename: entry.hf_filename, size_bytes: entry.size_bytes, quant: entry.metadata.quant, capabilities: entry.capabilities, backends: entry.backends, mmproj: entry.mmproj ? 'present' : null };
  }
  const body = { slug, ...JSON.parse(JSON.stringify(stack)), profiles, models };
  return { kind: STACK_ENVELOPE_KIND, schema_version: STACK_ENVELOPE_VERSION, svc_version: svcVersion, exported_at: now.toISOString(), checksum: checksumOf(body), stack: body };
}

/**
 * Check an envelope (kind, schema version, checksum), its slug (`asSlug`, else its own; it
 * must be free here), its stack and its profiles. Throws stacks.bad_envelope,
 * stacks.envelope_too_new or the slug's refusal; writes nothing.
 */
export function readEnvelope(config: Pick<ResolvedConfig, 'stacks' | 'profiles'>, envelope: unknown, asSlug: string | undefined): ImportedStack {
  const env = envelope as { kind?: unknown; schema_version?: unknown; checksum?: unknown; stack?: Record<string, unknown> } | null;
  if (!env || typeof env !== 'object' || env.kind !== STACK_ENVELOPE_KIND || typeof env.stack !== 'object' || env.stack === null) {
    throw new SvcError('stacks.bad_envelope', `not a stack envelope: expected {kind: "${STACK_ENVELOPE_KIND}", schema_version, checksum, stack}`, {});
  }
  if (typeof env.schema_version !== 'number' || env.schema_version > STACK_ENVELOPE_VERSION) {
    throw new SvcError('stacks.envelope_too_new', `the envelope's schema_version ${String(env.schema_version)} is newer than this svc reads (${STACK_ENVELOPE_VERSION}); upgrade svc`, { schema_version: env.schema_version });
  }
  if (env.checksum !== checksumOf(env.stack)) throw new SvcError('stacks.bad_envelope', 'the envelope\'s checksum does not match its stack: it was changed after export', { checksum: env.checksum });
  const { slug: exported, profiles = {}, models = {}, ...rest } = env.stack as { slug?: string; profiles?: Record<string, unknown>; models?: Record<string, unknown> };
  const slug = asSlug ?? String(exported ?? '');
  if (!SLUG.test(slug)) throw new SvcError('stacks.bad_envelope', 'the envelope names no valid slug; pass one', { slug });
  refuseTakenSlug(config, slug);
  const stack = parseStack(rest, `envelope stack ${slug}`);
  const checked = Object.entries(profiles).map(([name, value]) => [name, ProfileSchema.safeParse(value)] as const);
  const bad = checked.find(([, parsed]) => !parsed.success);
  if (bad) throw new SvcError('stacks.bad_envelope', `the envelope's profile ${bad[0]} is not valid`, { profile: bad[0] });
  const carried = checked.map(([name, parsed]): [string, Profile] => [name, parsed.data!]);
  const added = carried.filter(([name]) => !Object.hasOwn(SEED_PROFILES, name) && !own(config.profiles.profiles, name));
  return { slug, stack, profiles: carried, added, models: models as ImportedStack['models'] };
}

/** Per model of an imported stack: present (registered, its file there), pullable (a repo is known here or was carried), else unresolvable. */
export function importedModels(config: Pick<ResolvedConfig, 'registry'>, stack: Stack, carried: ImportedStack['models']): Promise<StackModelReport[]> {
  return Promise.all(modelIdsOf(stack).map(async (id): Promise<StackModelReport> => {
    const entry = own(config.registry.models, id);
    if (entry && (await stat(entry.path).then((s) => s.isFile(), () => false))) return { id, status: 'present' };
    return { id, status: entry?.hf_repo || own(carried, id)?.hf_repo ? 'pullable' : 'unresolvable' };
  }));
}
