// The gateway's proof that it holds the proxy secret, asked by the CLI before it sends the
// secret (issue 22): while the gateway is down, any local process may listen on its
// loopback port, and a CLI that sent the secret first would hand it to that process. The
// CLI sends a fresh random nonce; only a holder of the secret can answer its HMAC. The
// answer is bound to the nonce (no replay) and says nothing of the secret (HMAC-SHA256 is a
// PRF), which is why the route may be public. An HMAC works across users and containers,
// where the CLI could not check who owns the listening socket.
// The route's path and payload are the wire's, here; the HMAC both ends compute needs Node's
// crypto, which protocol (shared with the browser) does not import: auth/proxy/proof.ts.

export const PROOF_PATH = '/api/auth/proof';
/** 16 to 64 random bytes, as lower-case hex. */
export const PROOF_NONCE = /^[0-9a-f]{32,128}$/;

export interface ProofPayload {
  /** HMAC-SHA256 of the nonce with the proxy secret, hex; null when the gateway has no secret. */
  proof: string | null;
}
