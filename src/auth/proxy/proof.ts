// The HMAC behind the gateway's proof that it holds the proxy secret (protocol/proxy-proof.ts
// says why the CLI asks it): the CLI makes the nonce and checks the answer, the gateway
// (auth/proxy-identity.ts) computes it. Here, beside the proxy's deployment, because both
// ends use it and the CLI may import auth/proxy.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export function newProofNonce(): string {
  return randomBytes(32).toString('hex');
}

/** Domain-separated, so the proof is never a value the secret is used for anywhere else. */
export function proxyProof(secret: string, nonce: string): string {
  return createHmac('sha256', secret).update(`svc proxy proof\n${nonce}`).digest('hex');
}

export function proofMatches(secret: string, nonce: string, proof: unknown): boolean {
  if (typeof proof !== 'string') return false;
  const expected = Buffer.from(proxyProof(secret, nonce));
  const given = Buffer.from(proof);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
