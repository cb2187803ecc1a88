// The rpc-server command line of a llama-rpc slot (llama.cpp tools/rpc, as bundled in
// node-llama-cpp 3.22.1):
//   -H <[rpc].host> -p <[slot].port> [-d CPU] [-t <[rpc].threads>] [-c] <[server].extra_args>
// device = "cpu" pins the CPU device (a GPU build would otherwise offer its accelerators);
// a GPU slot leaves the choice to rpc-server, narrowed by the GPU-visibility environment
// ([slot].gpu_index, llama-server/env.ts). This rpc-server has no memory cap (-m was removed
// upstream): the main host decides how much each worker holds, in proportion to the free
// memory each reports, or by its --tensor-split.
import type { Device } from '../../config/schema/common.js';
import { SlotError } from '../../protocol/errors.js';

export interface RpcServerArgvInput {
  slot: string;
  host: string;
  port: number;
  device: Device;
  threads: number | null;
  cache: boolean;
  /** [server].extra_args, already split into words (and refused --host/--port). */
  extra: readonly string[];
}

/** Flags svc sets from the slot file; extra_args may not set them another way. */
const OWNED_SHORT = new Set(['-H', '-p']);

export function buildRpcServerArgv(input: RpcServerArgvInput): string[] {
  const owned = input.extra.filter((word) => OWNED_SHORT.has(word));
  if (owned.length > 0) {
    throw new SlotError('slot.config_error', `slot ${input.slot}: [server].extra_args may not set ${owned.join(', ')}: [rpc].host and [slot].port set where rpc-server listens`, { slot: input.slot, flags: owned });
  }
  if (input.device === 'npu') {
    throw new SlotError('slot.config_error', `slot ${input.slot}: rpc-server has no NPU device; use device = "cpu" or a GPU device`, { slot: input.slot, device: input.device });
  }
  return [
    '-H', input.host,
    '-p', String(input.port),
    ...(input.device === 'cpu' ? ['-d', 'CPU'] : []),
    ...(input.threads !== null ? ['-t', String(input.threads)] : []),
    ...(input.cache ? ['-c'] : []),
    ...input.extra,
  ];
}
