// Installing one published version of svc into <prefix>/versions/<version>/: the tarball
// comes from the configured registry only, is checked against the sha512 integrity the
// registry publishes before a byte of it is unpacked, is unpacked by svc's own strict tar
// reader (no links, no absolute or ".." paths), and gets its dependencies from npm. The new
// tree starts from a copy of the running tree's node_modules (hard links when that tree is
// itself a version directory, which nothing modifies), so npm fetches and builds only what
// differs: a native module rebuilt from source costs a minute, a link costs nothing.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { writeFileAtomic } from '../config/atomic.js';
import { npmCommand, runLogged } from '../lib/npm.js';
import { readTar } from '../lib/tar.js';
import { SvcError } from '../protocol/errors.js';
import type { UpdateJob } from '../protocol/updates.js';
import { INSTALL_MARKER, treeBin, versionDir, versionsDir } from './layout.js';

const MAX_TARBALL_BYTES = 256 * 1024 * 1024;

export interface VersionDist {
  tarball: string;
  /** `sha512-<base64>`, as the registry publishes it. */
  integrity: string;
}

/** The registry's record of one version; only its tarball and integrity are used. */
export async function versionDist(registry: string, name: string, version: string): Promise<VersionDist> {
  const url = new URL(`${name.replace('/', '%2f')}/${encodeURIComponent(version)}`, registry);
  const res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(15_000), redirect: 'error' }).catch((error: unknown) => {
    throw new SvcError('update.check_failed', `cannot reach the npm registry ${registry}: ${(error as Error).message}`, { registry });
  });
  if (res.status === 404) throw new SvcError('update.version_not_found', `the registry ${registry} has no ${name}@${version}`, { registry, package: name, version });
  if (!res.ok) throw new SvcError('update.check_failed', `the registry ${registry} answered ${res.status} for ${name}@${version}`, { registry, status: res.status });
  const dist = ((await res.json()) as { dist?: { tarball?: unknown; integrity?: unknown } }).dist ?? {};
  const { tarball, integrity } = dist;
  if (typeof integrity !== 'string' || !integrity.startsWith('sha512-')) {
    throw new SvcError('update.integrity_failed', `the registry publishes no sha512 integrity for ${name}@${version}; svc installs nothing it cannot verify`, { registry, version });
  }
  if (typeof tarball !== 'string' || !URL.canParse(tarball) || new URL(tarball).origin !== new URL(registry).origin) {
    throw new SvcError('update.integrity_failed', `the tarball of ${name}@${version} is not on the registry (${String(tarball)}); svc fetches only from ${registry}`, { registry, tarball: String(tarball) });
  }
  return { tarball, integrity };
}

/** Download the tarball, hashing as it comes; the bytes are returned only when they match. */
export async function downloadVerified(dist: VersionDist): Promise<Buffer> {
  const res = await fetch(dist.tarball, { signal: AbortSignal.timeout(10 * 60_000), redirect: 'error' });
  if (!res.ok || !res.body) throw new SvcError('update.check_failed', `downloading ${dist.tarball} answered ${res.status}`, { tarball: dist.tarball, status: res.status });
  const hash = createHash('sha512');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_TARBALL_BYTES) throw new SvcError('update.integrity_failed', `the tarball is larger than ${MAX_TARBALL_BYTES} bytes; refused`, { tarball: dist.tarball });
    hash.update(chunk);
    chunks.push(Buffer.from(chunk));
  }
  const got = `sha512-${hash.digest('base64')}`;
  if (got !== dist.integrity) throw new SvcError('update.integrity_failed', `the tarball does not match the registry's integrity (expected ${dist.integrity}, got ${got}); nothing was unpacked`, { tarball: dist.tarball, expected: dist.integrity, got });
  return Buffer.concat(chunks);
}

/** Unpack an npm tarball (its first path part, "package/", dropped) and check it is the package and version asked for. */
export async function unpackPackage(tgz: Buffer, into: string, expected: { name: string; version: string }): Promise<void> {
  let entries;
  try {
    entries = readTar(gunzipSync(tgz));
  } catch (error) {
    throw new SvcError('update.install_failed', `the tarball cannot be unpacked: ${(error as Error).message}`);
  }
  for (const entry of entries) {
    const path = entry.path.split('/').slice(1).join('/');
    if (path === '') continue;
    const target = resolve(into, path);
    if (relative(into, target).startsWith('..')) throw new SvcError('update.install_failed', `the tarball names a path outside its package: ${entry.path}`);
    if (entry.type === 'directory') await mkdir(target, { recursive: true });
    else {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, entry.data);
    }
  }
  const pkg = await readFile(join(into, 'package.json'), 'utf8').then((t) => JSON.parse(t) as { name?: unknown; version?: unknown }, () => ({}) as { name?: unknown; version?: unknown });
  if (pkg.name !== expected.name || pkg.version !== expected.version) {
    throw new SvcError('update.install_failed', `the tarball holds ${String(pkg.name ?? '(no package.json)')}@${String(pkg.version ?? '?')}, not ${expected.name}@${expected.version}`);
  }
}

export interface InstallRequest {
  prefix: string;
  name: string;
  version: string;
  dist: VersionDist;
  /** The tree whose node_modules seeds the new one (the running tree). */
  seedFrom: string;
  logFile: string;
  onStep: (state: 'downloading' | 'verifying' | 'installing', message: string) => Promise<void>;
}

/**
 * Install a version into versions/<version>/ unless a finished install of the same tarball is
 * there already (a --target back to a kept version). Built in a staging directory renamed into
 * place at the end, so versions/<version> is either absent or complete.
 */
export async function installVersion(request: InstallRequest): Promise<{ tree: string; reused: boolean }> {
  const { prefix, version, dist, logFile } = request;
  const tree = versionDir(prefix, version);
  const marker = await readFile(join(tree, INSTALL_MARKER), 'utf8').then((t) => JSON.parse(t) as { integrity?: string }, () => null);
  if (marker?.integrity === dist.integrity && existsSync(treeBin(tree))) return { tree, reused: true };

  await request.onStep('downloading', `downloading ${dist.tarball}`);
  const tgz = await downloadVerified(dist);
  await request.onStep('verifying', `the tarball matches ${dist.integrity.slice(0, 24)}…; unpacking`);
  const staging = join(versionsDir(prefix), `.staging-${version}-${process.pid}`);
  await rm(staging, { recursive: true, force: true });
  try {
    await mkdir(staging, { recursive: true });
  } catch (error) {
    throw new SvcError('update.install_failed', `cannot write ${versionsDir(prefix)}: ${(error as Error).message} (set SVC_PREFIX to a directory you can write, or run as root)`, { prefix });
  }
  try {
    await unpackPackage(tgz, staging, { name: request.name, version });
    await request.onStep('installing', `installing ${request.name}@${version}'s dependencies with npm (log: ${logFile})`);
    await seedModules(request.seedFrom, staging, prefix, logFile);
    const npm = await runLogged(npmCommand(), ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--no-update-notifier'], { cwd: staging, logFile });
    if (npm.code !== 0) throw new SvcError('update.install_failed', `npm install failed (exit ${npm.code}):\n${npm.tail}`, { log: logFile });
    const check = await runLogged(process.execPath, [treeBin(staging), '--version'], { cwd: staging, logFile, timeoutMs: 60_000 });
    if (check.code !== 0 || check.stdout.trim() !== version) throw new SvcError('update.install_failed', `the installed ${version} does not run (svc --version: exit ${check.code}, ${JSON.stringify(check.stdout.trim() || check.tail)})`, { log: logFile });
    await writeFile(join(staging, INSTALL_MARKER), `${JSON.stringify({ version, integrity: dist.integrity, installed_at: new Date().toISOString() }, null, 2)}\n`);
    await rm(tree, { recursive: true, force: true });
    await rename(staging, tree);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  return { tree, reused: false };
}

/** Copy the running tree's node_modules into the new tree: hard links from a kept version directory, a copy from anywhere else. */
async function seedModules(from: string, into: string, prefix: string, logFile: string): Promise<void> {
  const modules = join(from, 'node_modules');
  if (!existsSync(modules)) return;
  const managed = !relative(versionsDir(prefix), from).startsWith('..');
  const copied = await runLogged('cp', [managed ? '-al' : '-a', ...(managed ? [] : ['--reflink=auto']), modules, join(into, 'node_modules')], { logFile, timeoutMs: 10 * 60_000 });
  // Not fatal: npm then fetches everything itself.
  if (copied.code !== 0) await rm(join(into, 'node_modules'), { recursive: true, force: true });
}

/**
 * A version's own `svc config migrate` (it keeps a backup), then its `svc config validate`: a
 * version that cannot read this config is never switched to, and a migration it made is put
 * back from its backup when the validation fails.
 */
export async function checkConfig(tree: string, version: string, svcToml: string, logFile: string, migrate: boolean): Promise<UpdateJob['migration']> {
  let migration: UpdateJob['migration'] = null;
  if (migrate) {
    const run = await runLogged(process.execPath, [treeBin(tree), 'config', 'migrate', '--json'], { logFile, timeoutMs: 60_000 });
    if (run.code !== 0) throw new SvcError('update.config_invalid', `svc ${version} cannot migrate this configuration; nothing was switched:\n${run.tail}`, { log: logFile });
    const report = JSON.parse(run.stdout) as { migrated?: boolean; from?: number; to?: number; backup?: string };
    migration = { migrated: report.migrated === true, from: report.from, to: report.to, backup: report.backup };
  }
  const check = await runLogged(process.execPath, [treeBin(tree), 'config', 'validate', '--json'], { logFile, timeoutMs: 60_000 });
  if (check.code !== 0) {
    await undoMigration(migration, svcToml);
    throw new SvcError('update.config_invalid', `svc ${version} does not accept this configuration; nothing was switched${migration?.migrated ? ' and its migration was undone' : ''}:\n${check.tail}`, { log: logFile, migration });
  }
  return migration;
}

/** Put back the svc.toml a migration changed, from the backup the migration kept. */
export async function undoMigration(migration: UpdateJob['migration'], svcToml: string): Promise<void> {
  if (migration?.migrated && migration.backup) await writeFileAtomic(svcToml, await readFile(migration.backup));
}
