// The llama-server engine adapter: composes the argv, environment, binary lookup,
// container wrapping and health probe of this folder into the EngineAdapter contract.
// Process mode unless [engines].runtime names a container runtime and the profile has an
// image. In process mode the engine listens on 127.0.0.1 ([slots].publish_host applies to
// containers only).
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { SlotType } from '../../config/schema/common.js';
import { SlotError } from '../../protocol/errors.js';
import { flagValue } from '../argv.js';
import { readGgufHeader } from '../gguf/reader.js';
import type { EngineAdapter, LaunchContext, LaunchSpec } from '../types.js';
import { buildLlamaArgv } from './argv.js';
import { findLlamaServer, findRuntime } from './binary.js';
import { containerArgs, hostPort, probeHostDevices, type HostDevices } from '../container.js';
import { baseEnvironment, processEnv, slotEnv } from './env.js';
import { probeHealth } from './health.js';
import { checkRpcWorkers } from '../llama-rpc/reach.js';
import { parseLlamaServerLog } from './runtime-info.js';

export const LLAMA_SERVER_SERVES: readonly SlotType[] = ['llm', 'embedding', 'reranking'];

type HeaderReader = (path: string) => Promise<{ metadata: Record<string, unknown> }>;

/** `<general.architecture>.context_length` from a GGUF header, or null when unreadable. */
export async function ggufContextLength(path: string, read: HeaderReader = readGgufHeader): Promise<number | null> {
  try {
    const { metadata } = await read(path);
    const arch = metadata['general.architecture'];
    if (typeof arch !== 'string') return null;
    const value = metadata[`${arch}.context_length`];
    const n = typeof value === 'bigint' ? Number(value) : value;
    return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : null;
  } catch {
    // Not a GGUF file, or a damaged one: the fallback context applies and the engine's
    // own error tells the rest when it tries to load the file.
    return null;
  }
}

const isFileSync = (path: string) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** Where to reach a listener bound to `host`: a wildcard bind is reached on loopback. */
export function reachableUrl(host: string | undefined, port: number): string {
  const h = !host || host === '0.0.0.0' || host === '::' || host === '[::]' ? '127.0.0.1' : host.replace(/^\[(.*)\]$/, '$1');
  return `http://${hostPort(h, port)}`;
}

export interface LlamaServerDeps {
  /** Device nodes and group ids for container mode (default: read from this host). */
  hostDevices?: () => HostDevices;
  /** GGUF header reader (default: ../gguf/reader.js). */
  readHeader?: HeaderReader;
}

export function createLlamaServerAdapter(deps: LlamaServerDeps = {}): EngineAdapter {
  const hostDevices = deps.hostDevices ?? (() => probeHostDevices());
  const readHeader = deps.readHeader ?? readGgufHeader;

  async function launch(ctx: LaunchContext): Promise<LaunchSpec> {
    const { slot, model: modelCfg, server } = ctx.slot.config;
    if (!LLAMA_SERVER_SERVES.includes(slot.type)) {
      throw new SlotError('slot.config_error', `llama-server does not serve ${slot.type} slots (it serves ${LLAMA_SERVER_SERVES.join(', ')})`, { slot: slot.name, type: slot.type });
    }
    const file = ctx.model.path ? await stat(ctx.model.path).catch(() => undefined) : undefined;
    if (!file?.isFile()) {
      throw new SlotError('slot.model_missing', `model file of "${ctx.model.id}" is missing: ${ctx.model.path || '(no path)'}`, { slot: slot.name, model: ctx.model.id, path: ctx.model.path });
    }
    const nativeContext = ctx.model.contextLength ?? (modelCfg.context_size === null ? await ggufContextLength(ctx.model.path, readHeader) : null);
    const { runtime } = ctx.svc.engines;
    const containerRuntime = runtime !== 'process' && ctx.profile.profile.image.trim() !== '' ? runtime : null;

    const argv = buildLlamaArgv({
      config: ctx.slot.config,
      model: ctx.model,
      profile: ctx.profile.profile,
      nativeContext,
      host: containerRuntime ? '0.0.0.0' : '127.0.0.1',
      isFile: isFileSync,
    });
    // extra_args may move the port; whatever the engine ends up with is where it is reached.
    const port = Number(flagValue(argv, '--port'));
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new SlotError('slot.config_error', `the engine port "${flagValue(argv, '--port')}" is not a port number`, { slot: slot.name });
    }
    const envInput = { device: slot.device, gpuIndex: slot.gpu_index, serverEnv: server.env };

    if (containerRuntime) {
      const files = [ctx.model.path, flagValue(argv, '--mmproj'), flagValue(argv, '--chat-template-file')].filter((f): f is string => !!f);
      const publishHost = ctx.svc.slots.publish_host;
      return {
        command: await findRuntime(containerRuntime, ctx.baseEnv),
        args: containerArgs({
          runtime: containerRuntime, slotName: slot.name, image: ctx.profile.profile.image, device: slot.device, gpuIndex: slot.gpu_index,
          publishHost, port, modelStore: ctx.modelStore, files, env: slotEnv({ ...envInput, mode: 'container' }), argv, host: hostDevices(),
        }),
        env: baseEnvironment(ctx.baseEnv),
        baseUrl: reachableUrl(publishHost, port),
        mode: 'container',
        ...rpcPreflight(slot),
      };
    }
    const binary = await findLlamaServer(ctx.svc.engines.llama_server, ctx.baseEnv);
    return { command: binary.path, args: argv, env: processEnv(ctx.baseEnv, envInput), baseUrl: reachableUrl(flagValue(argv, '--host'), port), mode: 'process', ...rpcPreflight(slot) };
  }

  /** With rpc_workers: each must accept a connection first, or llama-server would abort on the first it cannot reach. */
  function rpcPreflight(slot: LaunchContext['slot']['config']['slot']): Pick<LaunchSpec, 'preflight'> {
    const workers = slot.rpc_workers;
    return workers.length > 0 ? { preflight: (signal) => checkRpcWorkers(slot.name, workers, signal) } : {};
  }

  return {
    provider: 'llama-server',
    serves: LLAMA_SERVER_SERVES,
    launch,
    health: (baseUrl, signal) => probeHealth(baseUrl, signal),
    runtimeInfo: async ({ logLines, args }) => parseLlamaServerLog(logLines, args),
  };
}

export const llamaServerAdapter: EngineAdapter = createLlamaServerAdapter();
