// SVC_* environment variables. Each is validated like a config key; a bad value is a
// problem in the file "environment" that names the variable.
import { isAbsolute } from 'node:path';
import type { ConfigProblem } from './problems.js';
import { describeValue } from './problems.js';

export interface EnvSettings {
  /** SVC_PORT: the API port when `svc serve --port` is not given. */
  readonly port?: number;
  /** SVC_HOST: the address `svc serve` binds when --host is not given (default 127.0.0.1). */
  readonly host?: string;
  /** SVC_API_URL: where the CLI finds the API (first of the rules in api-url.ts). */
  readonly apiUrl?: string;
  /** SVC_MODEL_STORE: overrides [models].store. */
  readonly modelStore?: string;
  /** SVC_ACTIVITY_RETENTION_DAYS: overrides [activity].retention_days. */
  readonly activityRetentionDays?: number;
  /** SVC_AUTH_ENABLED: auth mode on (1/true) or off (0/false, unset). */
  readonly authEnabled: boolean;
  /** SVC_HOSTNAME: the name clients reach svc by behind the proxy in auth mode (default svc.local). */
  readonly hostname: string;
}

export const ENV_FILE = 'environment';

export function readEnv(env: NodeJS.ProcessEnv): { settings: EnvSettings; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const fail = (name: string, expected: string) =>
    problems.push({ file: ENV_FILE, path: name, message: `expected ${expected}; got ${describeValue(env[name])}`, severity: 'error' });
  const value = (name: string) => {
    const raw = env[name]?.trim();
    return raw === '' ? undefined : raw;
  };

  const integer = (name: string, min: number, max: number, expected: string): number | undefined => {
    const raw = value(name);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < min || n > max) {
      fail(name, expected);
      return undefined;
    }
    return n;
  };

  const port = integer('SVC_PORT', 1, 65535, 'a port number 1-65535');
  const activityRetentionDays = integer('SVC_ACTIVITY_RETENTION_DAYS', 1, 1_000_000, 'a whole number of days >= 1');

  let apiUrl = value('SVC_API_URL');
  if (apiUrl !== undefined && !/^https?:\/\/[^\s/]+/.test(apiUrl)) {
    fail('SVC_API_URL', 'an http:// or https:// URL');
    apiUrl = undefined;
  }

  let modelStore = value('SVC_MODEL_STORE');
  if (modelStore !== undefined && !isAbsolute(modelStore)) {
    fail('SVC_MODEL_STORE', 'an absolute path');
    modelStore = undefined;
  }

  const authRaw = value('SVC_AUTH_ENABLED')?.toLowerCase();
  let authEnabled = false;
  if (authRaw !== undefined) {
    if (['1', 'true', 'yes', 'on'].includes(authRaw)) authEnabled = true;
    else if (!['0', 'false', 'no', 'off'].includes(authRaw)) fail('SVC_AUTH_ENABLED', '1 or 0');
  }

  let host = value('SVC_HOST');
  if (host !== undefined && !/^[A-Za-z0-9.:%-]{1,253}$/.test(host)) {
    fail('SVC_HOST', 'an address to bind, such as 127.0.0.1 or 0.0.0.0');
    host = undefined;
  }
  const hostname = value('SVC_HOSTNAME') ?? 'svc.local';
  if (!/^[A-Za-z0-9.-]{1,253}$/.test(hostname)) fail('SVC_HOSTNAME', 'a host name (letters, digits, dots and hyphens)');

  const settings: EnvSettings = {
    authEnabled,
    hostname: /^[A-Za-z0-9.-]{1,253}$/.test(hostname) ? hostname : 'svc.local',
    ...(port !== undefined && { port }),
    ...(host !== undefined && { host }),
    ...(apiUrl !== undefined && { apiUrl: apiUrl.replace(/\/+$/, '') }),
    ...(modelStore !== undefined && { modelStore }),
    ...(activityRetentionDays !== undefined && { activityRetentionDays }),
  };
  return { settings, problems };
}
