// Finding the llama-server binary (issue 3 §2): [engines].llama_server, then the
// SVC_LLAMA_SERVER environment variable, then `llama-server` on PATH. A source that is set
// but does not name an executable file is an error of its own rather than a silent fall
// through to the next one, so a typo never runs some other binary.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { SlotError } from '../../protocol/errors.js';
import { buildScriptPresent, llamaServerHelp } from './how-to-get.js';

/** How to get one, as this svc can tell it (a checkout has the build script; a package does not). */
const help = async () => llamaServerHelp(await buildScriptPresent());

/** Is this path an existing regular file with an execute bit for us? */
export async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` in the PATH directories, like a shell's lookup; empty entries are skipped. */
export async function searchPath(name: string, pathVar: string | undefined): Promise<string | undefined> {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

export interface BinarySource {
  path: string;
  from: 'config' | 'env' | 'path';
}

/** Resolve llama-server, or throw slot.binary_missing saying what was tried and how to get one. */
export async function findLlamaServer(configured: string, env: NodeJS.ProcessEnv): Promise<BinarySource> {
  if (configured) {
    if (await isExecutableFile(configured)) return { path: configured, from: 'config' };
    throw new SlotError('slot.binary_missing', `[engines].llama_server is "${configured}", which is not an executable file. ${await help()}`, { configured });
  }
  const fromEnv = env.SVC_LLAMA_SERVER;
  if (fromEnv) {
    const path = resolve(fromEnv);
    if (await isExecutableFile(path)) return { path, from: 'env' };
    throw new SlotError('slot.binary_missing', `SVC_LLAMA_SERVER is "${fromEnv}", which is not an executable file. ${await help()}`, { SVC_LLAMA_SERVER: fromEnv });
  }
  const onPath = await searchPath('llama-server', env.PATH);
  if (onPath) return { path: onPath, from: 'path' };
  throw new SlotError('slot.binary_missing', `llama-server was not found: [engines].llama_server and SVC_LLAMA_SERVER are unset and it is not on PATH. ${await help()}`, {});
}

/** The container runtime binary (podman or docker) on PATH, or slot.binary_missing. */
export async function findRuntime(runtime: 'podman' | 'docker', env: NodeJS.ProcessEnv): Promise<string> {
  const path = await searchPath(runtime, env.PATH);
  if (path) return path;
  throw new SlotError('slot.binary_missing', `[engines].runtime is "${runtime}", but ${runtime} is not on PATH. Install it, or set [engines].runtime = "process".`, { runtime });
}
