// `svc doctor perms`: ownership and modes of the config and state trees. Everything under
// them belongs to the home's owner (the user svc runs as: the owner of the config root);
// secrets (tokens.toml, the proxy secret, api.env, the activity log) are 0600; nothing is
// writable by group or others. `--fix` (root only) chowns and chmods what drifted. The
// model store's files are not walked (they may be thousands and are only read).
import { chmod, chown, lstat, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { SvcPaths } from '../config/paths.js';

export interface PermDrift {
  path: string;
  problem: string;
  /** What --fix does about it. */
  fix: { uid?: number; gid?: number; mode?: number };
}

export function secretFiles(paths: SvcPaths): string[] {
  return [paths.tokensToml, paths.proxySecret, paths.apiEnv, paths.openwebuiEnv, paths.activityDb];
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/** Walk both trees and list every drift. */
export async function auditPerms(paths: SvcPaths): Promise<{ owner: { uid: number; gid: number } | null; drift: PermDrift[] }> {
  const root = await stat(paths.configRoot).catch(() => null);
  if (!root) return { owner: null, drift: [] };
  const owner = { uid: root.uid, gid: root.gid };
  const secrets = new Set(secretFiles(paths));
  const skip = new Set([paths.defaultModelsDir]);
  const drift: PermDrift[] = [];
  const visit = async (path: string): Promise<void> => {
    const info = await lstat(path).catch(() => null);
    if (!info || info.isSymbolicLink()) return;
    if (info.uid !== owner.uid || info.gid !== owner.gid) drift.push({ path, problem: `owned by ${info.uid}:${info.gid}, not ${owner.uid}:${owner.gid}`, fix: { uid: owner.uid, gid: owner.gid } });
    const mode = info.mode & 0o777;
    if (secrets.has(path) && mode !== 0o600) drift.push({ path, problem: `mode ${octal(mode)}: a secret must be 0600`, fix: { mode: 0o600 } });
    else if (mode & 0o022) drift.push({ path, problem: `mode ${octal(mode)}: writable by ${mode & 0o002 ? 'everyone' : 'the group'}`, fix: { mode: mode & ~0o022 } });
    if (info.isDirectory() && !skip.has(path)) for (const name of await readdir(path).catch(() => [] as string[])) await visit(join(path, name));
  };
  await visit(paths.configRoot);
  if (relative(paths.configRoot, paths.stateRoot).startsWith('..')) await visit(paths.stateRoot);
  return { owner, drift };
}

export async function fixPerms(drift: readonly PermDrift[]): Promise<string[]> {
  const failures: string[] = [];
  for (const d of drift) {
    try {
      if (d.fix.uid !== undefined) await chown(d.path, d.fix.uid, d.fix.gid ?? -1);
      if (d.fix.mode !== undefined) await chmod(d.path, d.fix.mode);
    } catch (error) {
      failures.push(`${d.path}: ${(error as Error).message}`);
    }
  }
  return failures;
}
