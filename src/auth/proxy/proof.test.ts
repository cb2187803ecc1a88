import { describe, expect, it } from 'vitest';
import { PROOF_NONCE } from '../../protocol/proxy-proof.js';
import { newProofNonce, proofMatches, proxyProof } from './proof.js';

describe('the proxy proof', () => {
  it('matches only the HMAC of this nonce with this secret', () => {
    const nonce = newProofNonce();
    expect(nonce).toMatch(PROOF_NONCE);
    const proof = proxyProof('secret', nonce);
    expect(proofMatches('secret', nonce, proof)).toBe(true);
    expect(proofMatches('other', nonce, proof)).toBe(false);
    expect(proofMatches('secret', newProofNonce(), proof)).toBe(false);
    expect(proofMatches('secret', nonce, proof.slice(1))).toBe(false);
    expect(proofMatches('secret', nonce, null)).toBe(false);
  });
});
