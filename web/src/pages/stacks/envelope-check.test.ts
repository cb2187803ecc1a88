import { createHash, webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../src/protocol/canonical-json.js';
import { checkChecksum, readEnvelopeText } from './envelope-check.js';

const stack = { slug: 'pair', name: 'Pair', slots: [{ slot: 'chat', model: 'tiny' }], profiles: { mine: {} }, models: { tiny: {} } };
const checksum = `sha256:${createHash('sha256').update(canonicalJson(stack)).digest('hex')}`;
const envelope = { kind: 'svc.stack', schema_version: 1, svc_version: '0.1.0', exported_at: '2026-01-01T00:00:00Z', checksum, stack };
const subtle = webcrypto.subtle as unknown as SubtleCrypto;

describe('envelope check', () => {
  it('reads what an envelope holds', () => {
    expect(readEnvelopeText(JSON.stringify(envelope))).toMatchObject({ slug: 'pair', name: 'Pair', rows: 1, profiles: ['mine'], models: ['tiny'] });
  });

  it('says why a file is not an envelope', () => {
    expect(readEnvelopeText('{')).toMatchObject({ problem: expect.stringMatching(/^not JSON/) });
    expect(readEnvelopeText('{"kind":"other"}')).toMatchObject({ problem: expect.stringMatching(/^not a stack envelope/) });
  });

  it('checks the checksum the way the gateway does, whatever the key order', async () => {
    const reordered = { models: stack.models, profiles: stack.profiles, slots: stack.slots, name: 'Pair', slug: 'pair' };
    expect(await checkChecksum({ checksum, stack: reordered }, subtle)).toBe('matches');
    expect(await checkChecksum({ checksum, stack: { ...stack, name: 'Changed' } }, subtle)).toBe('differs');
    expect(await checkChecksum({ checksum, stack }, null)).toBe('unchecked');
  });
});
