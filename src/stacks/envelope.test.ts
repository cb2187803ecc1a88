import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResolvedConfig } from '../config/load.js';
import { ProfileSchema } from '../config/schema/profiles.js';
import { RegistryFileSchema } from '../config/schema/registry.js';
import { StackSchema } from '../config/schema/stacks.js';
import { SEED_STACKS } from '../config/seed-stacks.js';
import { STACK_ENVELOPE_KIND, STACK_ENVELOPE_VERSION } from '../protocol/stacks.js';
import { checksumOf, exportEnvelope, importedModels, readEnvelope } from './envelope.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-envelope-'));
const onDisk = join(dir, 'here.gguf');
writeFileSync(onDisk, 'gguf');

const mine = ProfileSchema.parse({ image: '', flags: '-ngl 0', device_class: 'cpu' });
type Config = Pick<ResolvedConfig, 'profiles' | 'registry' | 'stacks'>;
const config = {
  profiles: { profiles: { mine } },
  registry: RegistryFileSchema.parse({ models: {
    here: { path: onDisk, hf_repo: 'org/here', hf_filename: 'here-Q4_K_M.gguf', size_bytes: 4, metadata: { quant: 'Q4_K_M' } },
    gone: { path: join(dir, 'gone.gguf') },
  } }),
  stacks: { stack: { taken: StackSchema.parse({ name: 'taken', slots: [] }) } },
} as unknown as Config;

const stack = StackSchema.parse({ name: 'Work', slots: [
  { slot: 'chat', model: 'here', profile: 'mine', capabilities: [{ child: 'embed', model: 'gone' }] },
  { slot: 'util', model: 'here', profile: 'vulkan' },
] });
const NOW = new Date('2025-01-02T03:04:05.000Z');

describe('stack envelopes', () => {
  const envelope = exportEnvelope(config, 'work', stack, '1.2.3', NOW);

  it('carries the stack, the user profiles it names (seeds travel by name) and where to get its models, under a checksum of all that', () => {
    expect(envelope).toMatchObject({ kind: STACK_ENVELOPE_KIND, schema_version: STACK_ENVELOPE_VERSION, svc_version: '1.2.3', exported_at: NOW.toISOString() });
    expect(envelope.stack).toMatchObject({ slug: 'work', name: 'Work', profiles: { mine } });
    expect(Object.keys(envelope.stack.profiles as object)).toEqual(['mine']);
    expect(envelope.stack.models).toEqual({
      here: { id: 'here', name: '', hf_repo: 'org/here', hf_filename: 'here-Q4_K_M.gguf', size_bytes: 4, quant: 'Q4_K_M', capabilities: ['chat'], backends: [], mmproj: null },
      gone: { id: 'gone', name: '', hf_repo: null, hf_filename: null, size_bytes: null, quant: null, capabilities: ['chat'], backends: [], mmproj: null },
    });
    expect(envelope.checksum).toBe(checksumOf(envelope.stack));
    expect(envelope.checksum).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('the checksum does not depend on key order, and changes with any value', () => {
    expect(checksumOf({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(checksumOf({ b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(checksumOf({ a: 1 })).not.toBe(checksumOf({ a: 2 }));
  });

  it('reads back what it exported, under its own slug or another; profiles this gateway has are kept, not added', () => {
    const other = { ...config, profiles: { profiles: {} } } as unknown as Config;
    const imported = readEnvelope(other, JSON.parse(JSON.stringify(envelope)), undefined);
    expect(imported.slug).toBe('work');
    expect(imported.stack).toEqual(stack);
    expect(imported.added).toEqual([['mine', mine]]);
    expect(readEnvelope(config, envelope, 'copy')).toMatchObject({ slug: 'copy', profiles: [['mine', mine]], added: [] });
  });

  it('refuses what is not an envelope, one too new, one changed after export, a bad slug, a taken one and a bad profile', () => {
    const read = (value: unknown, slug?: string) => () => readEnvelope(config, value, slug);
    const edited = (change: (body: Record<string, unknown>) => void) => {
      const copy = JSON.parse(JSON.stringify(envelope)) as typeof envelope;
      change(copy.stack);
      return copy;
    };
    expect(read({ stack: envelope.stack })).toThrow(expect.objectContaining({ code: 'stacks.bad_envelope', message: expect.stringContaining('not a stack envelope') }));
    expect(read(null)).toThrow(expect.objectContaining({ code: 'stacks.bad_envelope' }));
    expect(read({ ...envelope, schema_version: STACK_ENVELOPE_VERSION + 1 })).toThrow(expect.objectContaining({ code: 'stacks.envelope_too_new' }));
    expect(read(edited((body) => (body.name = 'Tampered')))).toThrow(expect.objectContaining({ code: 'stacks.bad_envelope', message: expect.stringContaining('checksum does not match') }));
    expect(read(envelope, 'Not A Slug')).toThrow(expect.objectContaining({ code: 'stacks.bad_envelope', message: expect.stringContaining('no valid slug') }));
    expect(read(envelope, 'taken')).toThrow(expect.objectContaining({ code: 'stacks.exists' }));
    expect(read(envelope, 'active')).toThrow(expect.objectContaining({ code: 'stacks.invalid_name' }));
    expect(read(envelope, Object.keys(SEED_STACKS)[0])).toThrow(expect.objectContaining({ code: 'stacks.exists' }));
    const badProfile = edited((body) => ((body.profiles as Record<string, unknown>).mine = { device_class: 'toaster' }));
    expect(read({ ...badProfile, checksum: checksumOf(badProfile.stack) })).toThrow(expect.objectContaining({ code: 'stacks.bad_envelope', message: expect.stringContaining('profile mine') }));
    const badStack = edited((body) => (body.slots = [{ slot: 'x' }]));
    expect(read({ ...badStack, checksum: checksumOf(badStack.stack) })).toThrow(expect.objectContaining({ code: 'stacks.bad_envelope', message: expect.stringContaining('is not a valid stack') }));
  });

  it('reports each model: present with its file, pullable when a repo is known here or carried, else unresolvable', async () => {
    const withUnknown = StackSchema.parse({ name: 'x', slots: [{ slot: 'a', model: 'here' }, { slot: 'b', model: 'gone' }, { slot: 'c', model: 'carried' }, { slot: 'd', model: 'nowhere' }] });
    expect(await importedModels(config, withUnknown, { carried: { hf_repo: 'org/carried' } })).toEqual([
      { id: 'here', status: 'present' },
      { id: 'gone', status: 'unresolvable' },
      { id: 'carried', status: 'pullable' },
      { id: 'nowhere', status: 'unresolvable' },
    ]);
  });
});
