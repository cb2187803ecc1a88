// The files auth mode lives in, written by `svc auth enable|disable`: the proxy secret, the
// Caddyfile, SVC_AUTH_ENABLED in api.env, and the chat front end's openwebui.env. Disable
// keeps the Caddyfile, the secret and Caddy's TLS state, so enable works again at once.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/atomic.js';
import { writeEnvFile } from '../../config/env-file.js';
import type { SvcPaths } from '../../config/paths.js';
import { FORWARDED_EMAIL_HEADER_NAME } from '../proxy-identity.js';
import { renderCaddyfile } from './caddyfile.js';

export interface EnableOptions {
  readonly adminUser: string;
  /** Held in memory only: hashed here, never written. */
  readonly password: string;
  readonly hostname: string;
  readonly email: string;
  readonly api: string;
  readonly chat: string;
  readonly httpPort?: number;
  readonly httpsPort?: number;
}

/** Where Caddy's internal CA keeps the root certificate clients import. */
export function rootCertificatePath(paths: SvcPaths): string {
  return join(paths.caddyDataDir, 'pki/authorities/local/root.crt');
}

/** The per-install proxy secret, created (32 random bytes, base64url, mode 0600) when missing. */
export async function ensureProxySecret(paths: SvcPaths): Promise<{ secret: string; created: boolean }> {
  const existing = (await readFile(paths.proxySecret, 'utf8').catch(() => '')).trim();
  if (existing.length >= 16) return { secret: existing, created: false };
  const secret = randomBytes(32).toString('base64url');
  await writeFileAtomic(paths.proxySecret, `${secret}\n`, { mode: 0o600, forceMode: true });
  return { secret, created: true };
}

export async function writeAuthEnabled(paths: SvcPaths, options: EnableOptions): Promise<{ secretCreated: boolean }> {
  const { secret, created } = await ensureProxySecret(paths);
  const { hash } = await import('@node-rs/bcrypt');
  const passwordHash = await hash(options.password, 12);
  const text = renderCaddyfile({ ...options, passwordHash, proxySecret: secret, dataDir: paths.caddyDataDir });
  await writeFileAtomic(paths.caddyfile, text, { mode: 0o600, forceMode: true });
  // The API listens on loopback only: the proxy is the one door, with TLS.
  await writeEnvFile(paths.apiEnv, { SVC_AUTH_ENABLED: '1', SVC_HOSTNAME: options.hostname, SVC_HOST: '127.0.0.1' });
  await writeOpenWebuiEnv(paths, true);
  return { secretCreated: created };
}

export async function writeAuthDisabled(paths: SvcPaths): Promise<void> {
  await writeEnvFile(paths.apiEnv, { SVC_AUTH_ENABLED: '0', SVC_HOST: undefined });
  await writeOpenWebuiEnv(paths, false);
}

/** The chat front end signs in whoever the proxy forwards (auth on), or asks nobody (auth off). */
async function writeOpenWebuiEnv(paths: SvcPaths, auth: boolean): Promise<void> {
  await writeEnvFile(paths.openwebuiEnv, { WEBUI_AUTH: auth ? 'True' : 'False', WEBUI_AUTH_TRUSTED_EMAIL_HEADER: auth ? FORWARDED_EMAIL_HEADER_NAME : undefined });
}

/** The hostname of the rendered Caddyfile (its one site block), or undefined without one. */
export async function caddyfileHostname(paths: SvcPaths): Promise<string | undefined> {
  const text = await readFile(paths.caddyfile, 'utf8').catch(() => undefined);
  return text === undefined ? undefined : /^([^\s{#][^\s{]*) \{$/m.exec(text)?.[1];
}
