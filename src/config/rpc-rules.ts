// The rules of llama.cpp RPC slots (docs/scaling.md, "One model over several hosts"), read
// from a slot file's raw document like the other cross-field rules (rules.ts):
//   - provider "llama-rpc" and type "rpc-worker" go together: a worker serves no /v1 route;
//   - its rpc-server binds only a private address (loopback, RFC 1918, link-local) unless
//     [rpc].allow_public = true: rpc-server has no authentication;
//   - rpc_workers only on a llama-server slot (the engine with --rpc);
//   - an [rpc] section elsewhere is read by nothing (a warning).
import { isPrivateAddress } from '../lib/private-address.js';
import type { ConfigProblem } from './problems.js';
import type { TomlDoc } from './toml.js';

export const RPC_PROVIDER = 'llama-rpc';
export const RPC_WORKER_TYPE = 'rpc-worker';

type Table = Record<string, unknown>;
const tableAt = (doc: unknown, key: string): Table | undefined => {
  const value = doc && typeof doc === 'object' ? (doc as Table)[key] : undefined;
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Table) : undefined;
};

/** Why `host` may not be bound without allow_public, or null when it may. */
export function publicBindReason(host: string): string | null {
  if (isPrivateAddress(host)) return null;
  const what = host === '0.0.0.0' ? 'the wildcard 0.0.0.0 (every interface, public ones too)' : `"${host}", which is not a private address (loopback 127/8, RFC 1918 10/8, 172.16/12, 192.168/16, link-local 169.254/16)`;
  return `rpc-server would listen on ${what}; it has no authentication, so anyone who reaches it can use the worker. Bind it to a private network address, or set rpc.allow_public = true to accept that`;
}

export function rpcSlotRules(file: string, doc: TomlDoc): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const error = (path: string, message: string) => problems.push({ file, path, message, severity: 'error' });
  const slot = tableAt(doc, 'slot') ?? {};
  const provider = typeof slot.provider === 'string' ? slot.provider : 'llama-server';
  const type = typeof slot.type === 'string' ? slot.type : 'llm';
  if (provider === RPC_PROVIDER && type !== RPC_WORKER_TYPE) {
    error('slot.type', `expected "${RPC_WORKER_TYPE}" for provider "${RPC_PROVIDER}" (an rpc-server worker serves no /v1 route); got "${type}"`);
  }
  if (type === RPC_WORKER_TYPE && provider !== RPC_PROVIDER) {
    error('slot.provider', `expected "${RPC_PROVIDER}" for type "${RPC_WORKER_TYPE}"; got "${provider}"`);
  }
  const workers = slot.rpc_workers;
  if (Array.isArray(workers) && workers.length > 0 && provider !== 'llama-server') {
    error('slot.rpc_workers', `only llama-server spreads a model over RPC workers (--rpc); this slot's provider is "${provider}"`);
  }
  const rpc = tableAt(doc, 'rpc');
  if (rpc && provider !== RPC_PROVIDER) {
    problems.push({ file, path: 'rpc', message: `only read on provider = "${RPC_PROVIDER}" slots; this slot's provider is "${provider}"`, severity: 'warning' });
  }
  if (provider === RPC_PROVIDER && rpc?.allow_public !== true) {
    const host = typeof rpc?.host === 'string' ? rpc.host : '127.0.0.1';
    const reason = publicBindReason(host);
    // A host that is no IPv4 address at all is the schema's error, not this one.
    if (reason && /^\d+\.\d+\.\d+\.\d+$/.test(host)) error('rpc.host', reason);
  }
  return problems;
}
