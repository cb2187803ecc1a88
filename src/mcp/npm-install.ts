// `npm:<package>` installs: the npm CLI installs the package into the server's own state
// folder (<state>/mcp/<id>), and the record runs the package's bin with the node that runs svc,
// so nothing is fetched at run time (no npx). A failed install leaves nothing behind.
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { SvcError } from '../protocol/errors.js';
import { npmCommand, registryUrl, runLogged } from '../lib/npm.js';

const INSTALL_TIMEOUT_MS = 10 * 60_000;

export interface NpmInstalled {
  command: string;
  args: string[];
  /** The installed version, from the package's package.json. */
  version: string;
}

/** Install `pkg[@version]` into `dir` (created; removed again when anything fails). */
export async function npmInstall(dir: string, pkg: string, version: string | null, env: NodeJS.ProcessEnv = process.env): Promise<NpmInstalled> {
  await mkdir(dir, { recursive: true });
  try {
    // A package.json of its own, so npm installs here and never walks up to a parent project.
    await writeFile(join(dir, 'package.json'), `${JSON.stringify({ name: 'svc-mcp-server', private: true }, null, 2)}\n`);
    const args = ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-update-notifier', '--omit=dev'];
    // SVC_NPM_REGISTRY as svc update honours it; otherwise npm's own configuration applies.
    if (env.SVC_NPM_REGISTRY) args.push('--registry', registryUrl(env));
    args.push(version ? `${pkg}@${version}` : pkg);
    const run = await runLogged(npmCommand(), args, { cwd: dir, env, logFile: join(dir, 'install.log'), timeoutMs: INSTALL_TIMEOUT_MS });
    if (run.code !== 0) {
      throw new SvcError('mcp.install_failed', `npm could not install ${pkg}${version ? `@${version}` : ''} (exit ${run.code}):\n${run.tail}`, { package: pkg, stderr: run.tail });
    }
    return await resolveBin(dir, pkg);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The package's bin (package.json `bin`), run with the node that runs svc. */
export async function resolveBin(dir: string, pkg: string): Promise<NpmInstalled> {
  const pkgDir = join(dir, 'node_modules', ...pkg.split('/'));
  let manifest: { bin?: string | Record<string, string>; name?: string; version?: string };
  try {
    manifest = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8')) as typeof manifest;
  } catch (error) {
    throw new SvcError('mcp.install_failed', `npm installed ${pkg} but its package.json cannot be read: ${(error as Error).message}`, { package: pkg, stderr: '' });
  }
  const bin = pickBin(manifest.bin, pkg);
  if (!bin) throw new SvcError('mcp.install_failed', `${pkg} has no bin in its package.json: it is not a server svc can run`, { package: pkg, stderr: '' });
  const path = resolve(pkgDir, bin);
  // A bin outside its package would be a path the package chose on this host: refuse it.
  if (!path.startsWith(pkgDir + sep)) throw new SvcError('mcp.install_failed', `${pkg}'s bin ${bin} points outside the package`, { package: pkg, stderr: '' });
  await access(path).catch(() => {
    throw new SvcError('mcp.install_failed', `${pkg}'s bin ${bin} is missing after the install`, { package: pkg, stderr: '' });
  });
  return { command: process.execPath, args: [path], version: manifest.version ?? '' };
}

/** One bin: the only one, else the one named like the package, else the first. */
export function pickBin(bin: string | Record<string, string> | undefined, pkg: string): string | undefined {
  if (typeof bin === 'string') return bin;
  if (!bin) return undefined;
  const entries = Object.entries(bin);
  const base = pkg.split('/').pop()!;
  return (entries.find(([name]) => name === base) ?? entries.find(([name]) => name.includes(base)) ?? entries[0])?.[1];
}

/** Is `program` on PATH (oci:// needs docker or podman, uvx: needs uvx)? */
export async function onPath(program: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(':').filter(Boolean)) {
    const candidate = join(dir, program);
    try {
      await access(candidate, 1 /* X_OK */);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
