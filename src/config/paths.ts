// Where svc keeps its configuration and state.
//
// The spec fixes /etc/svc and /var/lib/svc, and SVC_HOME re-roots both under one prefix.
// A normal user with no SVC_HOME and no system install gets a per-user home instead of a
// permission error: the XDG config and state directories. That choice is documented in
// docs/configuration.md ("Where svc keeps its files").
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export type HomeSource = 'SVC_HOME' | 'system' | 'user';

export interface SvcPaths {
  readonly source: HomeSource;
  /** Root of the TOML configuration: /etc/svc or its re-rooted equivalent. */
  readonly configRoot: string;
  /** Root of the state: /var/lib/svc or its re-rooted equivalent. */
  readonly stateRoot: string;
  readonly svcToml: string;
  readonly slotsDir: string;
  readonly activityDb: string;
  readonly registryToml: string;
  readonly defaultModelsDir: string;
  readonly installSentinel: string;
  /** API token rows (auth mode), mode 0600. */
  readonly tokensToml: string;
  /** KEY=VALUE defaults for the API process (SVC_AUTH_ENABLED, ...); the process environment wins. */
  readonly apiEnv: string;
  /** The chat front end's environment, rendered by `svc auth enable|disable`. */
  readonly openwebuiEnv: string;
  /** The reverse proxy's configuration, rendered by `svc auth enable`. */
  readonly caddyfile: string;
  /** Caddy's storage (TLS certificates, its internal CA), kept across disable and enable. */
  readonly caddyDataDir: string;
  /** The per-install secret the proxy sends with X-Forwarded-Email (mode 0600). */
  readonly proxySecret: string;
  /** Tool server records, `<id>.toml` each (docs/mcp.md). */
  readonly mcpServersDir: string;
  /** Tool servers' state: `<id>/` per npm install, and the catalog cache. */
  readonly mcpStateDir: string;
}

/** Facts about the machine that decide the default home; injected so tests can cover every case. */
export interface HostFacts {
  readonly env: NodeJS.ProcessEnv;
  readonly isRoot: boolean;
  readonly homeDir: string;
  readonly exists: (path: string) => boolean;
}

export const SYSTEM_CONFIG_ROOT = '/etc/svc';
export const SYSTEM_STATE_ROOT = '/var/lib/svc';

export function hostFacts(env: NodeJS.ProcessEnv = process.env): HostFacts {
  return {
    env,
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
    homeDir: homedir(),
    exists: existsSync,
  };
}

export function resolvePaths(facts: HostFacts = hostFacts()): SvcPaths {
  const svcHome = facts.env.SVC_HOME?.trim();
  if (svcHome) {
    const prefix = resolve(svcHome);
    return build('SVC_HOME', join(prefix, 'etc/svc'), join(prefix, 'var/lib/svc'));
  }
  // A system install exists, or we are root and may create one: use the spec's paths.
  if (facts.isRoot || facts.exists(SYSTEM_CONFIG_ROOT)) {
    return build('system', SYSTEM_CONFIG_ROOT, SYSTEM_STATE_ROOT);
  }
  const configBase = facts.env.XDG_CONFIG_HOME?.trim() || join(facts.homeDir, '.config');
  const stateBase = facts.env.XDG_STATE_HOME?.trim() || join(facts.homeDir, '.local/state');
  return build('user', join(configBase, 'svc'), join(stateBase, 'svc'));
}

function build(source: HomeSource, configRoot: string, stateRoot: string): SvcPaths {
  return {
    source,
    configRoot,
    stateRoot,
    svcToml: join(configRoot, 'svc.toml'),
    slotsDir: join(configRoot, 'slots'),
    activityDb: join(stateRoot, 'activity.db'),
    registryToml: join(stateRoot, 'registry', 'registry.toml'),
    defaultModelsDir: join(stateRoot, 'models'),
    installSentinel: join(stateRoot, 'install.json'),
    tokensToml: join(configRoot, 'tokens.toml'),
    apiEnv: join(configRoot, 'api.env'),
    openwebuiEnv: join(configRoot, 'openwebui.env'),
    caddyfile: join(configRoot, 'Caddyfile'),
    caddyDataDir: join(stateRoot, 'caddy'),
    proxySecret: join(configRoot, 'proxy-secret'),
    mcpServersDir: join(configRoot, 'mcp-servers'),
    mcpStateDir: join(stateRoot, 'mcp'),
  };
}

/**
 * The one clear message a user gets when the chosen home cannot be written, for example
 * a normal user on a host where the service was installed system-wide under /etc/svc.
 */
export function notWritableHint(paths: SvcPaths, dir: string): string {
  const base = `cannot write ${dir}`;
  if (paths.source === 'system') {
    return `${base}: svc is installed system-wide; run this as the service user or root, or set SVC_HOME=~/svc-home for a personal instance`;
  }
  return `${base}: check its permissions, or set SVC_HOME to a directory you own`;
}
