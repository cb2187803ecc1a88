// What the CLI authenticates with in auth mode: --token or SVC_API_TOKEN as the bearer.
// Without one, a CLI on the gateway's own host that can read the proxy secret (mode 0600,
// the svc user's) speaks as the proxy does for a signed-in admin: whoever reads that file
// could already edit tokens.toml, so it grants nothing new, and it lets the host's admin
// create the first token without a browser. The secret goes only to a listener that first
// proves it holds it (protocol/proxy-proof.ts): while the gateway is down, any local process
// may be listening on its port.
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { newProofNonce, proofMatches } from '../auth/proxy/proof.js';
import { PROOF_PATH } from '../protocol/proxy-proof.js';
import type { SvcPaths } from '../config/paths.js';
import type { Credentials } from './client.js';

const LOOPBACK_URL = /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/;
/** The proof is one HMAC on the same host: a listener slower than this is not answering it. */
const PROOF_TIMEOUT_MS = 2_000;

const none: Credentials = async () => ({});

export function cliCredentials(baseUrl: string, paths: SvcPaths, token: string | undefined): Credentials {
  if (token) return async () => ({ authorization: `Bearer ${token}` });
  const secret = LOOPBACK_URL.test(baseUrl) ? readSecret(paths) : undefined;
  if (!secret) return none;
  let settled: Record<string, string> | undefined;
  return async () => {
    // Asked before the first request; asked again while nothing listens (a gateway starting).
    settled ??= await proxyCredentials(baseUrl, secret);
    return settled ?? {};
  };
}

function readSecret(paths: SvcPaths): string | undefined {
  try {
    return readFileSync(paths.proxySecret, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The proxy credential when the listener proved itself, none when it did not; undefined when nothing listens. */
async function proxyCredentials(baseUrl: string, secret: string): Promise<Record<string, string> | undefined> {
  const refusal = await listenerRefusal(baseUrl, secret);
  if (refusal === undefined) return { 'x-forwarded-email': `cli:${userInfo().username}`, 'x-svc-proxy-secret': secret };
  // Nothing listening: the request that follows says so itself.
  if (refusal === 'unreachable') return undefined;
  process.stderr.write(`svc: ${baseUrl} did not prove it is this home's gateway (${refusal}); the proxy secret was not sent\n`);
  return {};
}

/** Why the listener at baseUrl is not trusted with the secret; undefined when it proved it holds it. */
async function listenerRefusal(baseUrl: string, secret: string): Promise<string | undefined> {
  const nonce = newProofNonce();
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${PROOF_PATH}?nonce=${nonce}`, { signal: AbortSignal.timeout(PROOF_TIMEOUT_MS) });
  } catch {
    return 'unreachable';
  }
  if (!response.ok) return `it answered HTTP ${response.status} to ${PROOF_PATH}`;
  const body = (await response.json().catch(() => undefined)) as { proof?: unknown } | undefined;
  return proofMatches(secret, nonce, body?.proof) ? undefined : 'its proof does not match the secret';
}
