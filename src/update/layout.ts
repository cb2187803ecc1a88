// Where svc's versions live (docs/updates.md): <prefix>/versions/<version>/ holds one
// installed package each, <prefix>/current is a symlink to the one that runs, and
// <state>/svc.previous records the tree `current` pointed at before the last switch, which is
// what a rollback switches back to. The first update starts from wherever svc was installed
// (a global npm install, a checkout): that tree is the first "previous" and is never touched.
import { existsSync, realpathSync } from 'node:fs';
import { readdir, readFile, readlink, rename, rm, symlink, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { writeFileAtomic } from '../config/atomic.js';
import type { SvcPaths } from '../config/paths.js';
import { PACKAGE_ROOT } from '../lib/code-dir.js';
import type { InstalledTree } from '../protocol/updates.js';

/** Written into a version directory once its install finished: a directory without it is unfinished. */
export const INSTALL_MARKER = '.svc-install.json';

/** Where `svc update` installs versions: /opt/svc as root, else ~/.local/share/svc; SVC_PREFIX wins. */
export function installPrefix(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SVC_PREFIX?.trim()) return resolve(env.SVC_PREFIX.trim());
  return process.getuid?.() === 0 ? '/opt/svc' : join(homedir(), '.local/share/svc');
}

/** The package this code runs from, resolved. */
export function runningTree(): string {
  return realpathSync(PACKAGE_ROOT);
}

export const versionsDir = (prefix: string) => join(prefix, 'versions');
export const versionDir = (prefix: string, version: string) => join(versionsDir(prefix), version);
export const currentLink = (prefix: string) => join(prefix, 'current');
export const previousFile = (paths: SvcPaths) => join(paths.stateRoot, 'svc.previous');
/** The CLI of a tree: what a restart runs. */
export const treeBin = (tree: string) => join(tree, 'dist/bin/svc.js');

/** The version a tree's package.json names; null when it is not a package. */
export async function treeVersion(tree: string): Promise<string | null> {
  try {
    const pkg = JSON.parse(await readFile(join(tree, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : null;
  } catch {
    return null;
  }
}

/** Where `current` points, as an absolute path; null when there is no `current`. */
export async function readCurrent(prefix: string): Promise<string | null> {
  const link = currentLink(prefix);
  const target = await readlink(link).catch(() => null);
  return target === null ? null : resolve(dirname(link), target);
}

/**
 * Point `current` at a tree, atomically (a new link renamed over the old one), or remove it
 * (null). A tree under the prefix is linked relatively, so the prefix can be moved.
 */
export async function switchCurrent(prefix: string, tree: string | null): Promise<void> {
  const link = currentLink(prefix);
  if (tree === null) return void (await rm(link, { force: true }));
  const rel = relative(prefix, tree);
  const target = !rel.startsWith('..') && !isAbsolute(rel) ? rel : tree;
  const temp = `${link}.svc-tmp-${process.pid}`;
  await unlink(temp).catch(() => undefined);
  await symlink(target, temp);
  await rename(temp, link);
}

export async function readPrevious(paths: SvcPaths): Promise<InstalledTree | null> {
  try {
    const record = JSON.parse(await readFile(previousFile(paths), 'utf8')) as Partial<InstalledTree>;
    return typeof record.version === 'string' && typeof record.path === 'string' ? { version: record.version, path: record.path } : null;
  } catch {
    return null;
  }
}

export async function writePrevious(paths: SvcPaths, tree: InstalledTree | null): Promise<void> {
  if (tree === null) return void (await rm(previousFile(paths), { force: true }));
  await writeFileAtomic(previousFile(paths), `${JSON.stringify({ ...tree, recorded_at: new Date().toISOString() }, null, 2)}\n`);
}

/** The finished version directories, oldest name first. */
export async function installedVersions(prefix: string): Promise<string[]> {
  const names = await readdir(versionsDir(prefix)).catch(() => [] as string[]);
  return names.filter((name) => !name.startsWith('.') && existsSync(join(versionDir(prefix, name), INSTALL_MARKER))).sort();
}

/**
 * Remove version directories nothing needs (neither `current`, the previous tree nor one of
 * `keep`), and unfinished ones a cut-off install left. Returns what it removed.
 */
export async function pruneVersions(prefix: string, keep: string[]): Promise<string[]> {
  const kept = new Set(keep.map((p) => resolve(p)));
  const removed: string[] = [];
  for (const name of await readdir(versionsDir(prefix)).catch(() => [] as string[])) {
    const dir = versionDir(prefix, name);
    if (kept.has(dir)) continue;
    await rm(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}
