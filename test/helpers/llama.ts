// What integration tests need to run a real engine: the llama-server binary that
// scripts/build-llama-server.sh builds and caches, and the tiny GGUF model.
//
// The rule for tools a test needs: when the tool is missing, the test is skipped with a
// message saying how to get it, except under CI=true, where a missing tool is a failure
// (CI builds it first, so a skip there would hide a broken build).
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeTinyModel, type TinyModelVariant } from '../../src/engines/gguf/tiny-model.js';
import { REPO_ROOT, tempHome, type TempHome } from './gateway.js';
import { freeSlotPort } from './ports.js';

export const BUILD_HINT = 'build it with `bash scripts/build-llama-server.sh` (or set SVC_LLAMA_SERVER to a llama-server binary)';

const isExecutable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** Where the binary is or would be: SVC_LLAMA_SERVER when set, else the build script's cache path. */
export function llamaServerCandidate(): string | undefined {
  const fromEnv = process.env.SVC_LLAMA_SERVER;
  if (fromEnv) return fromEnv;
  const result = spawnSync('bash', [join(REPO_ROOT, 'scripts/build-llama-server.sh'), '--print-path'], { encoding: 'utf8', timeout: 30_000 });
  const path = result.status === 0 ? result.stdout.trim().split('\n').pop() : undefined;
  return path || undefined;
}

/**
 * The llama-server binary for integration tests, or undefined when it is not built (the
 * caller skips, saying why: see llamaServerSkipReason). Under CI=true a missing binary throws.
 */
export function llamaServerPath(): string | undefined {
  const candidate = llamaServerCandidate();
  if (candidate && isExecutable(candidate)) return candidate;
  const why = candidate ? `llama-server is not built: ${candidate} is missing or not executable` : 'llama-server is not built (scripts/build-llama-server.sh printed no path)';
  if (process.env.CI === 'true') throw new Error(`${why}; CI must build it first: ${BUILD_HINT}`);
  return undefined;
}

/**
 * llama.cpp's rpc-server for the RPC tests: SVC_RPC_SERVER when set, else the one beside the
 * llama-server above (the build script puts both in one bin/: `--print-rpc-path`), or
 * undefined when it is not built. Under CI=true a missing binary throws.
 */
export function rpcServerPath(): string | undefined {
  const candidate = process.env.SVC_RPC_SERVER || (llamaServerCandidate() && join(dirname(llamaServerCandidate()!), 'rpc-server'));
  if (candidate && isExecutable(candidate)) return candidate;
  const why = `rpc-server is not built: ${candidate ?? '(no path)'} is missing or not executable`;
  if (process.env.CI === 'true') throw new Error(`${why}; CI must build it first: ${BUILD_HINT}`);
  return undefined;
}

/** The line a skipped suite shows. */
export function llamaServerSkipReason(): string {
  return `SKIPPED: llama-server is not built; ${BUILD_HINT}`;
}

/** Write the tiny llama-architecture GGUF (DESIGN.md) into `dir`; returns its path. */
export async function tinyModel(dir: string, file = 'tiny.gguf', seed?: number, variant?: TinyModelVariant): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, file);
  await writeTinyModel(path, { ...(seed !== undefined && { seed }), ...(variant && { variant }) });
  return path;
}

/** Is a process alive (and not a zombie)? The supervisor's own check. */
export { isAlive as processAlive } from '../../src/lib/process.js';

export interface TinySlot {
  name: string;
  /** Slot type (default llm). */
  type?: string;
  /** Extra [slot] lines, e.g. "idle_timeout_s = 1". */
  extra?: string;
  contextSize?: number;
  /** Engine (default llama-server). */
  provider?: 'llama-server' | 'builtin';
  /** Registry model (default "tiny"); "tiny-rerank" is the tiny model's reranking variant. */
  model?: 'tiny' | 'tiny-rerank';
}

/**
 * A temp home with the tiny model registered as "tiny" (and its reranking variant as
 * "tiny-rerank" when a slot uses it) and one cpu slot per entry, each on a free slot port.
 */
export async function homeWithTinySlots(slots: readonly TinySlot[]): Promise<TempHome> {
  const home = tempHome();
  const models: Record<string, string> = { tiny: await tinyModel(join(home.home, 'models')) };
  if (slots.some((s) => s.model === 'tiny-rerank')) models['tiny-rerank'] = await tinyModel(join(home.home, 'models'), 'tiny-rerank.gguf', undefined, 'reranker');
  for (const slot of slots) {
    const type = slot.type ? `type = "${slot.type}"\n` : '';
    const provider = slot.provider ? `provider = "${slot.provider}"\n` : '';
    home.write(`slots/${slot.name}.toml`, `[slot]\nname = "${slot.name}"\n${type}${provider}port = ${await freeSlotPort()}\ndevice = "cpu"\n${slot.extra ?? ''}\n[model]\ndefault = "${slot.model ?? 'tiny'}"\ncontext_size = ${slot.contextSize ?? 512}\n`);
  }
  mkdirSync(join(home.stateRoot, 'registry'), { recursive: true });
  writeFileSync(join(home.stateRoot, 'registry/registry.toml'), Object.entries(models).map(([id, path]) => `[models.${id}]\npath = ${JSON.stringify(path)}\n`).join('\n'));
  return home;
}
