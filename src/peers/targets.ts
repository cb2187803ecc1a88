// The replica targets besides local slots (docs/scaling.md): every enabled peer in peers.toml,
// and every enabled remote upstream of kind vllm or llama-server in upstreams.toml. Listed once
// per config object (the config is replaced whole on a change, never mutated).
import type { ResolvedConfig } from '../config/load.js';
import type { TargetKind } from './probe.js';

export interface ReplicaTarget {
  /** `peer:<name>` or `upstream:<name>`: the X-Svc-Target value and the key of its state. */
  key: string;
  name: string;
  kind: TargetKind;
  /** A peer's root URL or an upstream's base_url, without a trailing slash. */
  baseUrl: string;
  origin: string;
  basePath: string;
  weight: number;
  enabled: boolean;
  staticModels: readonly string[] | null;
  /** Where its token comes from (peers) or its api_key_env (upstreams); the value is read when used. */
  tokenEnv: string | null;
  tokenFile: string | null;
  headers: Readonly<Record<string, string>>;
}

function parts(url: string): Pick<ReplicaTarget, 'baseUrl' | 'origin' | 'basePath'> {
  const baseUrl = url.replace(/\/+$/, '');
  const parsed = new URL(baseUrl);
  return { baseUrl, origin: parsed.origin, basePath: parsed.pathname.replace(/\/+$/, '') };
}

const cache = new WeakMap<ResolvedConfig, ReplicaTarget[]>();

/** Every configured target, disabled ones included (GET /api/peers shows them). */
export function replicaTargets(config: ResolvedConfig): ReplicaTarget[] {
  let list = cache.get(config);
  if (list) return list;
  list = [];
  for (const [name, p] of Object.entries(config.peers.peers)) {
    list.push({ key: `peer:${name}`, name, kind: 'peer', ...parts(p.url), weight: p.weight, enabled: p.enabled, staticModels: null, tokenEnv: p.token_env, tokenFile: p.token_file, headers: {} });
  }
  for (const [name, u] of Object.entries(config.upstreams.upstreams)) {
    if (u.slot !== null || u.kind === 'openai') continue;
    const headers = Object.fromEntries(Object.entries(u.headers).map(([k, v]) => [k.toLowerCase(), v]));
    list.push({ key: `upstream:${name}`, name, kind: u.kind, ...parts(u.base_url), weight: 1, enabled: u.enabled, staticModels: u.models, tokenEnv: u.api_key_env, tokenFile: null, headers });
  }
  cache.set(config, list);
  return list;
}
