// svc auth enable|disable|status: auth mode behind Caddy (docs/auth.md). The work is in
// src/auth/proxy/; this file asks for what it needs, runs it, and says what happened.
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { readEnvFile } from '../../config/env-file.js';
import { localGateway } from '../../config/api-url.js';
import type { SvcPaths } from '../../config/paths.js';
import { TokensFileSchema } from '../../config/schema/tokens.js';
import { readTomlFile } from '../../config/toml.js';
import { validateDocument } from '../../config/validate.js';
import { isLoopbackAddress } from '../../lib/addresses.js';
import { caddyfileHostname, rootCertificatePath, writeAuthDisabled, writeAuthEnabled } from '../../auth/proxy/deploy.js';
import { lanAddress, MDNS_UNIT, PROXY_UNIT, proxyRun, renderUnit, shellLine } from '../../auth/proxy/systemd-units.js';
import { findProgram, installUnit, stopUnit, systemdRunning, unitState } from '../../deploy/systemd.js';
import { ApiUnreachableError, type ApiClient } from '../client.js';
import { CliExit, EXIT, print, printJson } from '../output.js';

export interface EnableCommandOptions {
  user?: string;
  hostname?: string;
  email?: string;
  api?: string;
  chat?: string;
  httpPort?: number;
  httpsPort?: number;
  start: boolean;
}

const HOSTNAME = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

/** A password typed at the terminal, not echoed. */
async function promptHidden(question: string): Promise<string> {
  let muted = false;
  const output = new Writable({ write: (chunk, _enc, done) => ((muted ? undefined : process.stderr.write(chunk)), done()) });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  const answer = new Promise<string>((resolve) => rl.question(question, resolve));
  muted = true;
  const value = await answer;
  rl.close();
  process.stderr.write('\n');
  return value;
}

async function adminPassword(): Promise<string> {
  const fromEnv = process.env.SVC_ADMIN_PASSWORD;
  if (fromEnv) return fromEnv;
  if (!process.stdin.isTTY) throw new CliExit(EXIT.usage, 'no admin password: set SVC_ADMIN_PASSWORD (non-interactive runs need it) or run this at a terminal');
  const first = await promptHidden('admin password: ');
  if (first.length < 8) throw new CliExit(EXIT.usage, 'the admin password needs at least 8 characters');
  if ((await promptHidden('again: ')) !== first) throw new CliExit(EXIT.usage, 'the passwords differ; nothing was changed');
  return first;
}

export async function authEnable(client: ApiClient, paths: SvcPaths, options: EnableCommandOptions): Promise<void> {
  const env = process.env;
  const hostname = options.hostname ?? env.SVC_HOSTNAME ?? 'svc.local';
  const adminUser = options.user ?? env.SVC_ADMIN_USER ?? 'admin';
  if (!HOSTNAME.test(hostname)) throw new CliExit(EXIT.usage, `not a host name: ${JSON.stringify(hostname)}`);
  if (!/^[A-Za-z0-9._@-]{1,64}$/.test(adminUser)) throw new CliExit(EXIT.usage, `the admin user must be 1-64 letters, digits, . _ @ -; got ${JSON.stringify(adminUser)}`);
  const caddy = findProgram(env.SVC_CADDY || 'caddy');
  if (!caddy && options.start) throw new CliExit(EXIT.failed, 'caddy is not installed: install it (Debian/Ubuntu: apt-get install caddy) and run this again, or pass --no-start to only write the files');
  const password = await adminPassword();
  // The proxy reaches the API on loopback, at the port this home's gateway serves (or would take).
  const port = localGateway(paths).port;
  const { secretCreated } = await writeAuthEnabled(paths, {
    adminUser, password, hostname,
    email: options.email ?? env.SVC_TLS_EMAIL ?? `admin@${hostname}`,
    api: options.api ?? `127.0.0.1:${port}`,
    chat: options.chat ?? '127.0.0.1:3001',
    ...(options.httpPort !== undefined && { httpPort: options.httpPort }),
    ...(options.httpsPort !== undefined && { httpsPort: options.httpsPort }),
  });
  print(`wrote ${paths.caddyfile} (admin user ${adminUser}; only a bcrypt hash of the password)`);
  print(`${secretCreated ? 'created' : 'kept'} the proxy secret ${paths.proxySecret}`);
  print(`set SVC_AUTH_ENABLED=1 and SVC_HOST=127.0.0.1 in ${paths.apiEnv}; wrote ${paths.openwebuiEnv}`);
  if (options.start && caddy) await startProxy(paths, caddy);
  else print(`start the proxy: ${shellLine(proxyRun(paths, caddy ?? 'caddy'))}`);
  await publishHostname(hostname);
  print(`clients import Caddy's root certificate (once the proxy has started): ${rootCertificatePath(paths)}`);
  await reloadGateway(client, 'auth mode is on');
  const listening = await client.status().then((status) => status.listen.host, () => undefined);
  if (listening !== undefined && !isLoopbackAddress(listening)) {
    print(`restart svc: it listens on ${listening}, around the proxy's TLS; from its next start it binds 127.0.0.1 (SVC_HOST in ${paths.apiEnv})`);
  }
  print('API clients need a token: svc token create --label NAME --scope v1-only');
}

async function startProxy(paths: SvcPaths, caddy: string): Promise<void> {
  const run = proxyRun(paths, caddy);
  if (!systemdRunning()) {
    print(`systemd is not running here; start the proxy yourself and keep it running:\n  ${shellLine(run)}`);
    return;
  }
  const unit = await installUnit(PROXY_UNIT, renderUnit('svc reverse proxy (Caddy)', run), Object.values(run.env));
  if (!unit.ok) throw new CliExit(EXIT.failed, `could not start ${PROXY_UNIT} (${unit.path}): ${unit.output}`);
  print(`started ${PROXY_UNIT} (${unit.path})`);
}

/** mDNS for .local names when avahi is here; otherwise the hosts-file line clients need. */
async function publishHostname(hostname: string): Promise<void> {
  const address = lanAddress() ?? '<this host\'s address>';
  const avahi = findProgram('avahi-publish');
  if (hostname.endsWith('.local') && avahi && systemdRunning() && lanAddress()) {
    const run = { argv: [avahi, '-a', '-R', hostname, address], env: {} };
    const unit = await installUnit(MDNS_UNIT, renderUnit(`mDNS name ${hostname} for svc`, run));
    print(unit.ok ? `publishing ${hostname} over mDNS (${MDNS_UNIT})` : `could not publish ${hostname} over mDNS: ${unit.output}`);
    return;
  }
  if (hostname.endsWith('.local') && avahi) print(`publish ${hostname} over mDNS: ${avahi} -a -R ${hostname} ${address}`);
  else if (hostname !== 'localhost' && !/^[\d.]+$/.test(hostname)) print(`clients without DNS for ${hostname} need this line in their hosts file: ${address} ${hostname}`);
}

async function reloadGateway(client: ApiClient, what: string): Promise<void> {
  try {
    await client.reloadSettings();
    print(`the running gateway reloaded its configuration: ${what}`);
  } catch (error) {
    if (!(error instanceof ApiUnreachableError)) throw error;
    print(`no gateway answers at ${client.baseUrl}; it reads api.env when it starts`);
  }
}

export async function authDisable(client: ApiClient, paths: SvcPaths): Promise<void> {
  if (unitState(PROXY_UNIT).installed && systemdRunning()) {
    const stopped = stopUnit(PROXY_UNIT);
    print(stopped.ok ? `stopped ${PROXY_UNIT}` : `could not stop ${PROXY_UNIT}: ${stopped.output}`);
  } else {
    print('stop the proxy you started (svc did not install it as a service)');
  }
  await writeAuthDisabled(paths);
  print(`set SVC_AUTH_ENABLED=0 in ${paths.apiEnv}; ${paths.openwebuiEnv} no longer trusts the forwarded identity`);
  print(`kept ${paths.caddyfile}, the proxy secret and Caddy's TLS state: svc auth enable turns auth mode back on`);
  await reloadGateway(client, 'auth mode is off');
}

export async function authStatus(client: ApiClient, paths: SvcPaths, options: { json?: boolean }): Promise<void> {
  const fileEnv = await readEnvFile(paths.apiEnv);
  const raw = (process.env.SVC_AUTH_ENABLED ?? fileEnv.SVC_AUTH_ENABLED ?? '0').toLowerCase();
  const tokens = await readTomlFile(paths.tokensToml, 'tokens.toml');
  const rows = tokens.status === 'ok' ? validateDocument(TokensFileSchema, tokens.doc, 'tokens.toml').value?.tokens : [];
  const gateway = await client.authStatus().then((s) => ({ reachable: true, enabled: s.enabled }), () => ({ reachable: false, enabled: null }));
  const status = {
    enabled: ['1', 'true', 'yes', 'on'].includes(raw),
    hostname: (await caddyfileHostname(paths)) ?? fileEnv.SVC_HOSTNAME ?? null,
    caddyfile: existsSync(paths.caddyfile) ? paths.caddyfile : null,
    root_certificate: { path: rootCertificatePath(paths), exists: existsSync(rootCertificatePath(paths)) },
    proxy_unit: unitState(PROXY_UNIT),
    tokens: rows?.length ?? null,
    gateway,
  };
  if (options.json) return printJson(status);
  print(`auth mode    ${status.enabled ? 'on' : 'off'} (${paths.apiEnv}${process.env.SVC_AUTH_ENABLED !== undefined ? ', overridden by SVC_AUTH_ENABLED' : ''})`);
  print(`hostname     ${status.hostname ?? '-'}`);
  print(`Caddyfile    ${status.caddyfile ?? 'none (svc auth enable writes it)'}`);
  print(`root cert    ${status.root_certificate.path}${status.root_certificate.exists ? '' : ' (appears after the proxy first starts)'}`);
  print(`proxy        ${status.proxy_unit.installed ? `${PROXY_UNIT}: ${status.proxy_unit.active}` : 'not a service svc installed'}`);
  print(`tokens       ${status.tokens ?? 'tokens.toml is not valid'}`);
  print(`gateway      ${gateway.reachable ? `auth mode ${gateway.enabled ? 'on' : 'off'} at ${client.baseUrl}` : `not reachable at ${client.baseUrl}`}`);
}
