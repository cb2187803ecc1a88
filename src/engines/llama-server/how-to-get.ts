// How a user gets a llama-server, said where one is missing (slot.binary_missing, svc
// doctor). The build script lives only in a checkout of svc: the npm package ships no
// scripts/, so its user is pointed at llama.cpp's own builds, and at the built-in engine,
// which needs none.
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../lib/code-dir.js';

export const BUILD_SCRIPT = join(PACKAGE_ROOT, 'scripts', 'build-llama-server.sh');

let present: Promise<boolean> | undefined;
/** Whether this svc is a checkout with the build script (an installed package is not). */
export const buildScriptPresent = (): Promise<boolean> => (present ??= access(BUILD_SCRIPT).then(() => true, () => false));

const INSTALL = 'install llama.cpp (a release from https://github.com/ggml-org/llama.cpp/releases, or your system\'s package)';
const BUILD = '`npm run llama-server` builds one in this checkout (from the llama.cpp source node-llama-cpp bundles) and prints its path';

/** The whole advice, for an error message. */
export function llamaServerHelp(checkout: boolean): string {
  const get = checkout ? `${BUILD}; or ${INSTALL}` : `${INSTALL[0]!.toUpperCase()}${INSTALL.slice(1)}`;
  return `${get}; then set SVC_LLAMA_SERVER=<path> or [engines].llama_server in svc.toml, or put llama-server on PATH. A slot on the built-in engine (provider builtin) needs none.`;
}

/** svc doctor's hint: for a missing llama-server a slot needs, and for one that does not run. */
export function doctorHint(checkout: boolean, problem: 'missing' | 'broken'): string {
  if (problem === 'broken') return checkout ? 'rebuild it: npm run llama-server' : `${INSTALL} again, or point SVC_LLAMA_SERVER at one that runs`;
  return checkout ? `${BUILD}, then set SVC_LLAMA_SERVER; or ${INSTALL}` : `${INSTALL} and set SVC_LLAMA_SERVER=<path>; or move the slot to the built-in engine: svc slot edit <name> --provider builtin`;
}
