// The Caddyfile `svc auth enable` renders (docs/auth.md): Caddy
// terminates TLS, asks browsers for basic auth, and forwards who signed in together with
// the per-install secret that makes svc trust it (auth/proxy-identity.ts). Written for
// Debian's Caddy 2.6: `basicauth` with the bcrypt hash base64-encoded.
import { ACTOR_HEADER_NAME, FORWARDED_EMAIL_HEADER_NAME, PROXY_SECRET_HEADER_NAME } from '../proxy-identity.js';
import { PUBLIC_PATHS } from '../../protocol/access.js';

export interface CaddyfileInput {
  readonly hostname: string;
  /** ACME contact; also Caddy's global email. */
  readonly email: string;
  readonly adminUser: string;
  /** bcrypt hash of the admin password; the plaintext never reaches this module. */
  readonly passwordHash: string;
  /** host:port of the svc API. */
  readonly api: string;
  /** host:port of the chat front end. */
  readonly chat: string;
  readonly proxySecret: string;
  /** Caddy's storage: certificates and its internal CA. */
  readonly dataDir: string;
  readonly httpPort?: number;
  readonly httpsPort?: number;
}

/** A name no public CA will issue for: Caddy's own CA (`tls internal`) serves it. */
export function isLocalHostname(hostname: string): boolean {
  const name = hostname.toLowerCase();
  if (!name.includes('.') || name === 'localhost' || /^[\d.]+$/.test(name) || name.includes(':')) return true;
  return ['.local', '.lan', '.home.arpa', '.internal', '.localhost', '.test'].some((suffix) => name.endsWith(suffix));
}

export function renderCaddyfile(input: CaddyfileInput): string {
  const local = isLocalHostname(input.hostname);
  const hash = Buffer.from(input.passwordHash).toString('base64');
  const basicauth = [`\t\tbasicauth {`, `\t\t\t${input.adminUser} ${hash}`, `\t\t}`];
  const identity = `\t\t\theader_up ${FORWARDED_EMAIL_HEADER_NAME} {http.auth.user.id}`;
  return [
    '# Rendered by `svc auth enable`; re-run it to change anything here (hand edits are overwritten).',
    '# It holds the bcrypt hash of the admin password (never the password) and the proxy secret: mode 0600.',
    '{',
    `\temail ${input.email}`,
    '\t# No admin API: nothing on this host can reconfigure the proxy behind svc\'s back.',
    '\tadmin off',
    '\t# Clients import the root certificate themselves (svc auth status says where it is);',
    '\t# Caddy does not touch the system trust store.',
    '\tskip_install_trust',
    ...(input.httpPort ? [`\thttp_port ${input.httpPort}`] : []),
    ...(input.httpsPort ? [`\thttps_port ${input.httpsPort}`] : []),
    '\tstorage file_system {',
    `\t\troot ${input.dataDir}`,
    '\t}',
    '}',
    '',
    `${input.hostname} {`,
    local ? '\ttls internal' : `\ttls ${input.email}`,
    '\t# Without port 80 reachable from the internet, use the DNS-01 challenge instead, e.g.:',
    '\t# tls {',
    '\t# \tdns cloudflare {env.CLOUDFLARE_API_TOKEN}',
    '\t# }',
    '\tencode zstd gzip',
    '',
    '\t# What a client sends in these headers is never what svc sees.',
    `\trequest_header -${FORWARDED_EMAIL_HEADER_NAME}`,
    '\trequest_header -X-Forwarded-User',
    `\trequest_header -${PROXY_SECRET_HEADER_NAME}`,
    `\trequest_header -${ACTOR_HEADER_NAME}`,
    '',
    '\t# The public routes: no credentials (the public allowlist of docs/auth.md).',
    `\t@public path ${PUBLIC_PATHS.join(' ')}`,
    '\thandle @public {',
    `\t\treverse_proxy ${input.api}`,
    '\t}',
    '',
    '\t# The OpenAI-compatible API: bearer tokens, checked by svc; no basic auth.',
    '\thandle /v1/* {',
    `\t\treverse_proxy ${input.api}`,
    '\t}',
    '',
    '\t# The chat front end signs in whoever the proxy signed in.',
    '\tredir /chat /chat/ 308',
    '\thandle_path /chat/* {',
    ...basicauth,
    `\t\treverse_proxy ${input.chat} {`,
    identity,
    '\t\t}',
    '\t}',
    '',
    '\t# Everything else (the dashboard, /api): basic auth, then svc as that admin.',
    '\thandle {',
    ...basicauth,
    `\t\treverse_proxy ${input.api} {`,
    identity,
    `\t\t\theader_up ${PROXY_SECRET_HEADER_NAME} ${input.proxySecret}`,
    '\t\t}',
    '\t}',
    '}',
    '',
  ].join('\n');
}
