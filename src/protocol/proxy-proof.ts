// The gateway's proof that it holds the proxy secret, asked by the CLI before it sends the
// secret (issue 22): while the gateway is down, any local process may listen on its
// loopback port, and a CLI that sent the secret first would hand it to that process. The
// CLI sends a fresh random nonce; only a holder of the secret can answer its HMAC. The
// answer is bound to the nonce (no replay) and says nothing of the secret (HMAC-SHA256 is a
// PRF), which is why the route may be public. An HMAC works across users and containers,
// where the CLI could not check who owns the listening socket.
// Wire logic, so in protocol/: the route's path and payload, and the HMAC both ends compute.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const PROOF_PATH = '/api/auth/proof';
/** 16 to 64 random bytes, as lower-case hex. */
export const PROOF_NONCE = /^[0-9a-f]{32,128}$/;

export interface ProofPayload {
  /** HMAC-SHA256 of the nonce with the proxy secret, hex; null when the gateway has no secret. */
  proof: string | null;
}

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
