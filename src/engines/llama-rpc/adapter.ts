// The llama-rpc engine adapter: llama.cpp's rpc-server on a worker host, which lends its
// device (CPU or GPU) to a llama-server on another host ([slot].rpc_workers there). It
// serves no /v1 route and loads no model: the main host sends it the layers. Always a
// process, listening on [rpc].host, which must be private unless [rpc].allow_public
// (rpc-server has no authentication; see config/rpc-rules.ts). Health: a socket listens on
// its port (listening.ts says why no connection is made).
import { join } from 'node:path';
import type { SlotType } from '../../config/schema/common.js';
import { publicBindReason, RPC_PROVIDER, RPC_WORKER_TYPE } from '../../config/rpc-rules.js';
import { SlotError } from '../../protocol/errors.js';
import { checkServes } from '../engine-launch.js';
import { tokenizeFlags } from '../llama-server/argv.js';
import { processEnv } from '../llama-server/env.js';
import type { EngineAdapter, LaunchContext, LaunchSpec } from '../types.js';
import { buildRpcServerArgv } from './argv.js';
import { findRpcServer } from './binary.js';
import { listeningHealth } from './listening.js';

export const LLAMA_RPC_SERVES: readonly SlotType[] = [RPC_WORKER_TYPE];

/** Where svc checks the worker: a wildcard bind is seen on loopback. */
export const rpcBaseUrl = (host: string, port: number) => `tcp://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;

async function launch(ctx: LaunchContext): Promise<LaunchSpec> {
  const { slot, server, rpc } = ctx.slot.config;
  checkServes(RPC_PROVIDER, LLAMA_RPC_SERVES, slot);
  // The configuration refuses this at load; a worker is never started on it either.
  const publicBind = rpc.allow_public ? null : publicBindReason(rpc.host);
  if (publicBind) throw new SlotError('slot.config_error', `slot ${slot.name}: ${publicBind}`, { slot: slot.name, field: 'rpc.host', host: rpc.host });
  const argv = buildRpcServerArgv({
    slot: slot.name, host: rpc.host, port: slot.port, device: slot.device, threads: rpc.threads, cache: rpc.cache,
    extra: tokenizeFlags(server.extra_args, '[server].extra_args'),
  });
  const env = processEnv(ctx.baseEnv, { device: slot.device, gpuIndex: slot.gpu_index, serverEnv: server.env });
  // rpc-server keeps its cache in $LLAMA_CACHE/rpc: the slot's own folder, not the user's home.
  if (rpc.cache && env.LLAMA_CACHE === undefined) env.LLAMA_CACHE = join(ctx.stateDir, 'cache');
  return { command: await findRpcServer(ctx.svc.engines.llama_server, ctx.baseEnv), args: argv, env, baseUrl: rpcBaseUrl(rpc.host, slot.port), mode: 'process' };
}

export const llamaRpcAdapter: EngineAdapter = {
  provider: RPC_PROVIDER,
  serves: LLAMA_RPC_SERVES,
  loadsNoModel: true,
  launch,
  health: (baseUrl) => listeningHealth(baseUrl),
};
