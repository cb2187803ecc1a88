// Running the proxy: as a systemd unit where systemd runs (a user unit for a normal user;
// deploy/systemd.ts installs it), otherwise as a command the user runs. Caddy's own files
// (autosave, locks) go under svc's state root through XDG_*, so nothing lands outside svc's home.
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import type { SvcPaths } from '../../config/paths.js';
import { unitWantedBy } from '../../deploy/systemd.js';
import { quoteWord as quote } from '../../lib/shell-words.js';

export const PROXY_UNIT = 'svc-caddy.service';
export const MDNS_UNIT = 'svc-mdns.service';

export interface ProxyRun {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export function proxyRun(paths: SvcPaths, caddy: string): ProxyRun {
  return {
    argv: [caddy, 'run', '--config', paths.caddyfile, '--adapter', 'caddyfile'],
    env: { XDG_CONFIG_HOME: join(paths.caddyDataDir, 'config'), XDG_DATA_HOME: join(paths.caddyDataDir, 'data') },
  };
}

/** The proxy as one shell line. */
export function shellLine(run: ProxyRun): string {
  return [...Object.entries(run.env).map(([k, v]) => `${k}=${quote(v)}`), ...run.argv.map(quote)].join(' ');
}

export function renderUnit(description: string, run: ProxyRun, extra: readonly string[] = []): string {
  return [
    '[Unit]',
    `Description=${description}`,
    'After=network-online.target',
    '',
    '[Service]',
    ...Object.entries(run.env).map(([k, v]) => `Environment=${k}=${v}`),
    `ExecStart=${run.argv.map(quote).join(' ')}`,
    'Restart=on-failure',
    ...extra,
    '',
    '[Install]',
    `WantedBy=${unitWantedBy()}`,
    '',
  ].join('\n');
}

/** This host's first LAN IPv4 address, for the hosts-file line or the mDNS record. */
export function lanAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const address of list ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  return undefined;
}
