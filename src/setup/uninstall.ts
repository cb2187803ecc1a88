// `svc uninstall`: undo an installation, step by step, each step reported. Conservative by
// default: stop this home's gateway (it stops its engines) and any engine a dead gateway
// left, remove the service units and the installed version trees, keep config and state.
// Purge also removes the config and state roots; keep-data spares the models and the
// activity log. Nothing outside svc's own roots and units is touched: a model store
// configured elsewhere is the user's, and is kept.
import { existsSync } from 'node:fs';
import { lstat, readdir, readlink, rm, unlink } from 'node:fs/promises';
import { join, relative, isAbsolute } from 'node:path';
import { MDNS_UNIT, PROXY_UNIT } from '../auth/proxy/systemd-units.js';
import { API_UNIT } from '../deploy/gateway-unit.js';
import { stopUnit, unitPath } from '../deploy/systemd.js';
import { liveHolder } from '../config/instance-lock.js';
import type { SvcPaths } from '../config/paths.js';
import { stopLeftoverEngines } from './leftover-engines.js';
import { isAlive, sleep } from '../lib/process.js';
import { effectiveStore } from '../config/model-store.js';
import type { ResolvedConfig } from '../config/load.js';
import { installPrefix } from '../update/layout.js';

/** The model store when one is configured ([models].store or a root); null for the default under the state root. */
export const configuredStore = (config: ResolvedConfig | null): string | null => (config ? effectiveStore(config.svc.models) : null);

export interface UninstallStep {
  step: string;
  status: 'done' | 'skipped' | 'failed';
  detail: string;
}

export interface UninstallOptions {
  purge: boolean;
  keepData: boolean;
  /** Where `svc update` installs versions (versions/<v>/, current); absent until it has. Default: installPrefix(). */
  prefix?: string;
  /** The model store, when it is configured outside the state root (kept). */
  store: string | null;
}

const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};

// Run as root, uninstall must not be steered by the svc user, who owns both roots and may
// have replaced any folder in them with a symbolic link (issue 22): it never follows a link
// it did not make. Everything is looked at with lstat; a link is removed as a link, and what
// it points to is never read, descended into or removed (fs.rm itself does not follow the
// links inside a tree it removes).

/** What is at `path` itself (a link as a link); undefined when nothing is. */
const entryAt = (path: string) => lstat(path).catch(() => undefined);

async function removeRoot(root: string): Promise<{ status: UninstallStep['status']; detail: string }> {
  const entry = await entryAt(root);
  if (!entry) return { status: 'skipped', detail: `${root} does not exist` };
  if (entry.isSymbolicLink()) {
    const target = await readlink(root);
    await unlink(root);
    return { status: 'done', detail: `removed the symbolic link ${root}; what it points to (${target}) was not touched` };
  }
  await rm(root, { recursive: true, force: true });
  return { status: 'done', detail: `removed ${root}` };
}

/** Keep-data: everything under dir goes but the kept paths; their parents stay as real folders. */
async function removeAllBut(dir: string, kept: ReadonlySet<string>): Promise<void> {
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if (kept.has(path)) continue;
    // lstat: a link on the way to a kept path is removed as a link, never descended into.
    const isFolder = (await entryAt(path))?.isDirectory() === true;
    if (isFolder && [...kept].some((k) => inside(path, k))) await removeAllBut(path, kept);
    else await rm(path, { recursive: true, force: true });
  }
}

export async function uninstall(paths: SvcPaths, options: UninstallOptions): Promise<UninstallStep[]> {
  const steps: UninstallStep[] = [];
  const attempt = async (step: string, run: () => Promise<{ status: UninstallStep['status']; detail: string }>) => {
    try {
      steps.push({ step, ...(await run()) });
    } catch (error) {
      steps.push({ step, status: 'failed', detail: (error as Error).message });
    }
  };

  await attempt('stop the gateway', async () => {
    const holder = liveHolder(paths.stateRoot);
    if (!holder) return { status: 'skipped', detail: 'no gateway serves this home' };
    process.kill(holder.pid, 'SIGTERM');
    for (let i = 0; i < 300 && isAlive(holder.pid); i++) await sleep(50);
    if (isAlive(holder.pid)) throw new Error(`the gateway (pid ${holder.pid}) did not stop within 15 s`);
    return { status: 'done', detail: `stopped the gateway (pid ${holder.pid}) and with it its engines` };
  });
  await attempt('stop engines left running', async () => {
    const { engines } = await stopLeftoverEngines(paths.stateRoot);
    const failed = engines.filter((e) => !e.stopped);
    if (failed.length) throw new Error(`could not stop ${failed.map((e) => `${e.slot} (pid ${e.pid})`).join(', ')}`);
    return engines.length ? { status: 'done', detail: `stopped ${engines.map((e) => `${e.slot} (pid ${e.pid})`).join(', ')}` } : { status: 'skipped', detail: 'no engine of this home runs' };
  });
  for (const unit of [API_UNIT, PROXY_UNIT, MDNS_UNIT]) {
    await attempt(`remove ${unit}`, async () => {
      const file = unitPath(unit);
      if (!existsSync(file)) return { status: 'skipped', detail: 'not installed' };
      stopUnit(unit);
      await rm(file, { force: true });
      return { status: 'done', detail: `stopped, disabled and removed ${file}` };
    });
  }
  await attempt('remove installed versions', async () => {
    const prefix = options.prefix ?? installPrefix();
    const trees = ['versions', 'current'].map((n) => join(prefix, n)).filter((p) => existsSync(p));
    if (trees.length === 0) return { status: 'skipped', detail: `none under ${prefix}` };
    for (const tree of trees) await rm(tree, { recursive: true, force: true });
    return { status: 'done', detail: `removed ${trees.join(', ')}` };
  });
  if (!options.purge) {
    steps.push({ step: 'keep config and state', status: 'skipped', detail: `kept ${paths.configRoot} and ${paths.stateRoot} (svc uninstall --purge removes them)` });
    return steps;
  }
  await attempt('remove config', () => removeRoot(paths.configRoot));
  await attempt('remove state', async () => {
    const kept = options.keepData ? new Set([paths.defaultModelsDir, paths.activityDb, `${paths.activityDb}-wal`, `${paths.activityDb}-shm`]) : new Set<string>();
    if (options.store && inside(paths.stateRoot, options.store) && options.keepData) kept.add(options.store);
    const root = await entryAt(paths.stateRoot);
    if (kept.size === 0 || !root?.isDirectory()) return removeRoot(paths.stateRoot);
    await removeAllBut(paths.stateRoot, kept);
    return { status: 'done', detail: `removed ${paths.stateRoot} except the models and the activity log` };
  });
  if (options.store && !inside(paths.stateRoot, options.store)) steps.push({ step: 'keep the model store', status: 'skipped', detail: `${options.store} is outside svc's roots; it is yours and was kept` });
  return steps;
}
