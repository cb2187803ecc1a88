// Finding llama.cpp's rpc-server: SVC_RPC_SERVER, then the rpc-server beside the llama-server
// svc would run (scripts/build-llama-server.sh puts both in one bin/, from one source: a
// worker and its main host must speak the same RPC protocol version), then rpc-server or
// ggml-rpc-server (upstream's target name) on PATH. A source that is set but names no
// executable file is an error of its own, never a silent fall through.
import { dirname, join, resolve } from 'node:path';
import { SlotError } from '../../protocol/errors.js';
import { findLlamaServer, isExecutableFile, searchPath } from '../llama-server/binary.js';

export const RPC_SERVER_HELP =
  'Build it with `bash scripts/build-llama-server.sh` (it builds llama-server and rpc-server side by side; ' +
  '`--print-rpc-path` says where), then set SVC_RPC_SERVER=<path>, or point svc at that llama-server ' +
  '(SVC_LLAMA_SERVER or [engines].llama_server): the rpc-server beside it is used.';

export async function findRpcServer(configuredLlamaServer: string, env: NodeJS.ProcessEnv): Promise<string> {
  const fromEnv = env.SVC_RPC_SERVER;
  if (fromEnv) {
    const path = resolve(fromEnv);
    if (await isExecutableFile(path)) return path;
    throw new SlotError('slot.binary_missing', `SVC_RPC_SERVER is "${fromEnv}", which is not an executable file. ${RPC_SERVER_HELP}`, { SVC_RPC_SERVER: fromEnv });
  }
  const llamaServer = await findLlamaServer(configuredLlamaServer, env).catch(() => undefined);
  const beside = llamaServer && join(dirname(llamaServer.path), 'rpc-server');
  if (beside && (await isExecutableFile(beside))) return beside;
  for (const name of ['rpc-server', 'ggml-rpc-server']) {
    const onPath = await searchPath(name, env.PATH);
    if (onPath) return onPath;
  }
  const looked = beside ? `not beside ${llamaServer.path}, ` : '';
  throw new SlotError('slot.binary_missing', `rpc-server was not found: SVC_RPC_SERVER is unset, it is ${looked}and neither rpc-server nor ggml-rpc-server is on PATH. ${RPC_SERVER_HELP}`, {});
}
