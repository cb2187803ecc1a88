// The reverse proxy's forwarded identity (spec rule 1), accepted only when it cannot be
// forged: auth mode is on, the peer is loopback (the proxy runs on this host) and the request
// carries the per-install secret that only the rendered Caddyfile sets (Caddy strips inbound
// copies). Trusted-header designs fail open when the header can reach the app directly;
// this one fails closed: without the secret file no forwarded identity is accepted at all.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { readFile } from 'node:fs/promises';
import { isLoopbackAddress } from '../lib/addresses.js';
import { proxyProof } from './proxy/proof.js';
import type { Identity } from './identity.js';

/** As Node reads them (lower case) and as the Caddyfile writes them. */
export const FORWARDED_EMAIL_HEADER = 'x-forwarded-email';
export const PROXY_SECRET_HEADER = 'x-svc-proxy-secret';
export const FORWARDED_EMAIL_HEADER_NAME = 'X-Forwarded-Email';
export const PROXY_SECRET_HEADER_NAME = 'X-Svc-Proxy-Secret';
/** Who acted, for the activity log: believed only from the proxy (server/request.ts, actorOf). */
export const ACTOR_HEADER_NAME = 'X-Svc-Actor';

/** The secret's SHA-256, compared in constant time with the header's. */
export class ProxySecret {
  private digest: Buffer | undefined;
  private secret: string | undefined;
  private loaded: string | undefined;

  constructor(private readonly path: string) {}

  /** (Re)read the secret file; a missing or empty one accepts no forwarded identity. */
  async load(): Promise<void> {
    const text = await readFile(this.path, 'utf8').catch(() => '');
    this.loaded = text;
    const secret = text.trim();
    this.secret = secret.length >= 16 ? secret : undefined;
    this.digest = this.secret === undefined ? undefined : sha256(this.secret);
  }

  /** Re-read the file when its contents may have changed (cheap: it is a few dozen bytes). */
  async reloadIfChanged(): Promise<void> {
    const text = await readFile(this.path, 'utf8').catch(() => '');
    if (text !== this.loaded) await this.load();
  }

  matches(value: string): boolean {
    return this.digest !== undefined && timingSafeEqual(sha256(value), this.digest);
  }

  /** The answer to the CLI's challenge (protocol/proxy-proof.ts); null without a secret. */
  prove(nonce: string): string | null {
    return this.secret === undefined ? null : proxyProof(this.secret, nonce);
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export function proxyIdentity(headers: IncomingHttpHeaders, peer: string | undefined, secret: ProxySecret): Identity | undefined {
  const email = headers[FORWARDED_EMAIL_HEADER];
  const presented = headers[PROXY_SECRET_HEADER];
  if (typeof email !== 'string' || email === '' || email.length > 254 || typeof presented !== 'string') return undefined;
  if (!isLoopbackAddress(peer) || !secret.matches(presented)) return undefined;
  return { kind: 'proxy', label: email, scope: 'admin' };
}
