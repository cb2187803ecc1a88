// Where pulled files go: the Hugging Face cache layout, so llama.cpp (LLAMA_CACHE), Python
// tools and svc share one copy. `<store>/models--org--repo/blobs/<sha256>` holds the bytes,
// `snapshots/<commit>/<path>` is a relative symlink into blobs, `refs/main` names the commit.
// A direct URL's file goes to `<store>/downloads/<host>/<name>`.
import { randomBytes } from 'node:crypto';
import { mkdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { writeFileAtomic } from '../../config/atomic.js';
import { ModelError } from '../../protocol/errors.js';
import { cacheFolderName, safeRepoPath } from '../../protocol/pull-ref.js';

/** `child` joined under `root`, refused if it would land outside it. */
export function inside(root: string, child: string): string {
  const full = resolve(root, child);
  if (full !== resolve(root) && !full.startsWith(resolve(root) + sep)) {
    throw new ModelError('model.pull_unsafe_path', `${JSON.stringify(child)} would leave ${root}; nothing was fetched`, { path: child });
  }
  return full;
}

export interface RepoLayout {
  readonly folder: string;
  blob(id: string): string;
  snapshot(commit: string, path: string): string;
}

export function repoLayout(store: string, repo: string): RepoLayout {
  const folder = inside(store, cacheFolderName(repo));
  return {
    folder,
    blob: (id) => inside(join(folder, 'blobs'), id),
    snapshot: (commit, path) => {
      if (!safeRepoPath(path)) throw new ModelError('model.pull_unsafe_path', `the repo path ${JSON.stringify(path)} would leave the snapshot folder`, { path });
      return inside(join(folder, 'snapshots', commit), path);
    },
  };
}

export function urlTarget(store: string, url: string): string {
  const parsed = new URL(url);
  const name = decodeURIComponent(parsed.pathname.split('/').pop() ?? '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '') || 'model.gguf';
  return inside(join(store, 'downloads', parsed.host.replace(/[^A-Za-z0-9.-]+/g, '_')), name);
}

/**
 * Point `link` at `blob` with a relative symlink, replacing a stale one. The link is made
 * under a temporary name and renamed over, so two pulls linking the same file at once (two
 * ids for one repo file) both succeed and a reader never finds the link missing.
 */
export async function linkSnapshot(link: string, blob: string): Promise<void> {
  const target = relative(dirname(link), blob);
  if ((await readlink(link).catch(() => null)) === target) return;
  await mkdir(dirname(link), { recursive: true });
  const temp = `${link}.svc-link-${randomBytes(4).toString('hex')}`;
  await symlink(target, temp);
  await rename(temp, link).catch(async (error: unknown) => {
    await rm(temp, { force: true });
    throw error;
  });
}

export async function writeRef(layout: RepoLayout, revision: string, commit: string): Promise<void> {
  if (!/^[A-Za-z0-9._-]+$/.test(revision)) return;
  await writeFileAtomic(join(layout.folder, 'refs', revision), commit);
}
