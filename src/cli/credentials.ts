// What the CLI authenticates with in auth mode: --token or SVC_API_TOKEN as the bearer.
// Without one, a CLI on the gateway's own host that can read the proxy secret (mode 0600,
// the svc user's) speaks as the proxy does for a signed-in admin: whoever reads that file
// could already edit tokens.toml, so it grants nothing new, and it lets the host's admin
// create the first token without a browser.
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import type { SvcPaths } from '../config/paths.js';

const LOOPBACK_URL = /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/;

export function cliCredentials(baseUrl: string, paths: SvcPaths, token: string | undefined): Record<string, string> {
  if (token) return { authorization: `Bearer ${token}` };
  if (!LOOPBACK_URL.test(baseUrl)) return {};
  let secret: string;
  try {
    secret = readFileSync(paths.proxySecret, 'utf8').trim();
  } catch {
    return {};
  }
  if (!secret) return {};
  return { 'x-forwarded-email': `cli:${userInfo().username}`, 'x-svc-proxy-secret': secret };
}
