// Where the CLI finds the gateway (docs/cli.md, "How the CLI finds the API"), first match wins:
//   1. SVC_API_URL;
//   2. the gateway serving this home now: its instance lock records the URL it listens on;
//   3. 127.0.0.1 on the port `svc serve` would take: SVC_PORT (the environment, then the
//      home's api.env, as the gateway reads them), else 8080.
// Step 2 is why `SVC_HOME=$H svc status` reaches a gateway started there on any port.
// Reading the lock and api.env is synchronous: this runs once per CLI command, never in the server.
import { readFileSync } from 'node:fs';
import { localUrlOf } from '../lib/addresses.js';
import { parseEnvText } from './env-file.js';
import { readEnv, type EnvSettings } from './env.js';
import { homeOf, liveHolder, lockFileOf } from './instance-lock.js';
import type { SvcPaths } from './paths.js';

export const DEFAULT_API_PORT = 8080;

export type ApiUrlSource = 'SVC_API_URL' | 'gateway' | 'SVC_PORT' | 'api.env' | 'default';

export interface ApiTarget {
  readonly url: string;
  readonly source: ApiUrlSource;
  /** Why this URL, in words (`svc --verbose` prints it). */
  readonly why: string;
}

/** The port a gateway on this home listens on or would take, and where that came from. */
export interface LocalGateway {
  readonly url: string;
  readonly port: number;
  readonly source: Exclude<ApiUrlSource, 'SVC_API_URL'>;
  readonly why: string;
}

/** The gateway serving this home now, else where `svc serve` would listen (127.0.0.1 on SVC_PORT, api.env's, or 8080). */
export function localGateway(paths: SvcPaths, env: NodeJS.ProcessEnv = process.env): LocalGateway {
  const live = liveGateway(paths);
  if (live) return live;
  const home = homeOf(paths);
  const at = (port: number, source: LocalGateway['source'], why: string): LocalGateway => ({ url: localUrlOf('127.0.0.1', port), port, source, why: `no gateway serves this home (${home}); ${why}` });
  const fromEnv = readEnv(env).settings.port;
  if (fromEnv !== undefined) return at(fromEnv, 'SVC_PORT', `SVC_PORT is ${fromEnv}`);
  const fromFile = readEnv(apiEnvOf(paths)).settings.port;
  if (fromFile !== undefined) return at(fromFile, 'api.env', `SVC_PORT is ${fromFile} in ${paths.apiEnv}`);
  return at(DEFAULT_API_PORT, 'default', `SVC_PORT is not set: the default port ${DEFAULT_API_PORT}`);
}

/** Where the CLI sends its requests; `settings` are the environment's (a malformed SVC_API_URL is the caller's error). */
export function resolveApiUrl(settings: EnvSettings, paths: SvcPaths, env: NodeJS.ProcessEnv = process.env): ApiTarget {
  if (settings.apiUrl !== undefined) return { url: settings.apiUrl, source: 'SVC_API_URL', why: 'SVC_API_URL is set' };
  const { url, source, why } = localGateway(paths, env);
  return { url, source, why };
}

/** The live gateway of this home, at the URL its lock records made reachable from here; undefined when none serves it (or it is still starting). */
function liveGateway(paths: SvcPaths): LocalGateway | undefined {
  const holder = liveHolder(paths.stateRoot);
  if (!holder?.url) return undefined;
  let recorded: URL;
  try {
    recorded = new URL(holder.url);
  } catch {
    return undefined;
  }
  const port = Number(recorded.port || (recorded.protocol === 'https:' ? 443 : 80));
  // A lock written by an older gateway may name its wildcard bind; a client cannot connect to that.
  return {
    url: localUrlOf(recorded.hostname, port), port, source: 'gateway',
    why: `the gateway serving this home (${homeOf(paths)}, pid ${holder.pid}) recorded it in ${lockFileOf(paths.stateRoot)}`,
  };
}

function apiEnvOf(paths: SvcPaths): NodeJS.ProcessEnv {
  try {
    return parseEnvText(readFileSync(paths.apiEnv, 'utf8'));
  } catch {
    return {};
  }
}
