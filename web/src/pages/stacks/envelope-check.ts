// Reading an exported stack file in the browser before it is sent: is it an envelope, what it
// holds, and does its checksum match (SHA-256 over the canonical JSON of its stack, as the
// gateway computes it). The gateway checks again on import; this shows the user first.
import { canonicalJson } from '../../../../src/protocol/canonical-json.js';
import { STACK_ENVELOPE_KIND, type StackEnvelopePayload } from '../../../../src/protocol/stacks.js';

export interface EnvelopeFacts {
  envelope: StackEnvelopePayload;
  slug: string;
  name: string;
  rows: number;
  profiles: string[];
  models: string[];
}

/** The envelope in a file's text, or why it is not one. */
export function readEnvelopeText(text: string): EnvelopeFacts | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `not JSON: ${(error as Error).message}` };
  }
  const envelope = value as Partial<StackEnvelopePayload> | null;
  if (!envelope || typeof envelope !== 'object' || envelope.kind !== STACK_ENVELOPE_KIND || typeof envelope.stack !== 'object' || envelope.stack === null) {
    return { problem: `not a stack envelope: expected {kind: "${STACK_ENVELOPE_KIND}", schema_version, checksum, stack}` };
  }
  const stack = envelope.stack as { slug?: unknown; name?: unknown; slots?: unknown; profiles?: unknown; models?: unknown };
  return {
    envelope: envelope as StackEnvelopePayload,
    slug: typeof stack.slug === 'string' ? stack.slug : '',
    name: typeof stack.name === 'string' ? stack.name : '',
    rows: Array.isArray(stack.slots) ? stack.slots.length : 0,
    profiles: Object.keys((stack.profiles as object | undefined) ?? {}),
    models: Object.keys((stack.models as object | undefined) ?? {}),
  };
}

export type ChecksumResult = 'matches' | 'differs' | 'unchecked';

/** The envelope's checksum against its stack; "unchecked" where the browser has no WebCrypto (plain http off localhost). */
export async function checkChecksum(envelope: Pick<StackEnvelopePayload, 'checksum' | 'stack'>, subtle: SubtleCrypto | null = globalThis.crypto?.subtle ?? null): Promise<ChecksumResult> {
  if (!subtle) return 'unchecked';
  const digest = await subtle.digest('SHA-256', new TextEncoder().encode(canonicalJson(envelope.stack)));
  const hex = [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return envelope.checksum === `sha256:${hex}` ? 'matches' : 'differs';
}

/** The file name an export is saved under (what the gateway's Content-Disposition names). */
export const envelopeFileName = (slug: string) => `${slug}.svcstack.json`;
