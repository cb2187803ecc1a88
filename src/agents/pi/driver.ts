// pi (docs/agents.md): the coding agent published on npm as @mariozechner/pi-coding-agent, a
// `cli` agent. Installed with the npm CLI into <state>/agents/pi (its own package.json, never
// global), wired through its configuration directory (wiring.ts). Uninstall removes all of it
// but the data directory (pi's sessions), which only a purge removes.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { AgentError } from '../../protocol/errors.js';
import { npmCommand, registryUrl, runLogged } from '../../lib/npm.js';
import type { AgentDriver, AgentPaths, GatewayWiring, InstallOptions, ProgressSink, UninstallReport } from '../driver.js';
import { writePiWiring } from './wiring.js';

export const PI_PACKAGE = '@mariozechner/pi-coding-agent';
/** The newest version that runs on Node 20 (engines >=20.6), checked when this was written. */
export const PI_VERSION = '0.73.1';
const INSTALL_TIMEOUT_MS = 10 * 60_000;
/** What an install writes under installDir, all removed by uninstall (data/ is not among them). */
const INSTALLED = ['node_modules', 'package.json', 'package-lock.json', 'config', 'bin', 'run.json', 'install.log', 'provision'];

const packageDir = (paths: AgentPaths) => join(paths.installDir, 'node_modules', ...PI_PACKAGE.split('/'));

export class PiDriver implements AgentDriver {
  readonly name = 'pi';
  readonly kind = 'cli' as const;

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  async install(paths: AgentPaths, wiring: GatewayWiring, options: InstallOptions, progress: ProgressSink): Promise<{ version: string }> {
    const version = options.version ?? PI_VERSION;
    if (options.dryRun) {
      progress('plan', `would install ${PI_PACKAGE}@${version} into ${paths.installDir} and wire it to ${wiring.v1Url}`);
      return { version };
    }
    try {
      await this.npmInstall(paths, version, progress);
      return { version: await this.wire(paths, wiring, progress) };
    } catch (error) {
      // A failed install leaves nothing of it (the user's sessions in data/ stay).
      await removeInstalled(paths);
      throw error;
    }
  }

  async upgrade(paths: AgentPaths, wiring: GatewayWiring, to: string | undefined, progress: ProgressSink): Promise<{ version: string }> {
    const from = await this.installedVersion(paths);
    const version = to ?? PI_VERSION;
    try {
      await this.npmInstall(paths, version, progress);
    } catch (error) {
      // npm may have left a half-replaced tree: put the version that ran back.
      if (from) await this.npmInstall(paths, from, progress).catch(() => undefined);
      throw error;
    }
    return { version: await this.wire(paths, wiring, progress) };
  }

  async uninstall(paths: AgentPaths, options: { purge: boolean }): Promise<UninstallReport> {
    const removed: string[] = [];
    const residual: UninstallReport['residual'] = [];
    for (const entry of [...INSTALLED, ...(options.purge ? ['data'] : [])]) {
      const path = join(paths.installDir, entry);
      try {
        await rm(path, { recursive: true, force: true });
        removed.push(path);
      } catch (error) {
        residual.push({ path, reason: (error as NodeJS.ErrnoException).code ?? (error as Error).message });
      }
    }
    // The folder itself when nothing is left in it (a kept data/ keeps it).
    const left = await readdir(paths.installDir).catch(() => null);
    if (left !== null && left.length === 0) await rm(paths.installDir, { recursive: true, force: true }).then(() => removed.push(paths.installDir));
    return { removed, residual };
  }

  async installedVersion(paths: AgentPaths): Promise<string | null> {
    try {
      const manifest = JSON.parse(await readFile(join(packageDir(paths), 'package.json'), 'utf8')) as { version?: string };
      await readFile(join(paths.installDir, 'run.json'));
      return manifest.version ?? null;
    } catch {
      return null;
    }
  }

  private async npmInstall(paths: AgentPaths, version: string, progress: ProgressSink): Promise<void> {
    const dir = paths.installDir;
    await mkdir(dir, { recursive: true });
    // A package.json of its own, so npm installs here and never walks up to a parent project.
    await writeFile(join(dir, 'package.json'), `${JSON.stringify({ name: 'svc-agent-pi', private: true }, null, 2)}\n`);
    const args = ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-update-notifier', '--omit=dev', '--save-exact'];
    if (this.env.SVC_NPM_REGISTRY) args.push('--registry', registryUrl(this.env));
    args.push(`${PI_PACKAGE}@${version}`);
    progress('npm', `npm install ${PI_PACKAGE}@${version} into ${dir}`);
    const run = await runLogged(npmCommand(), args, { cwd: dir, env: this.env, logFile: join(dir, 'install.log'), timeoutMs: INSTALL_TIMEOUT_MS });
    if (run.code !== 0) {
      throw new AgentError('agent.install_failed', `npm could not install ${PI_PACKAGE}@${version} (exit ${run.code}):\n${run.tail}`, { step: 'npm', package: PI_PACKAGE, version, stderr: run.tail });
    }
  }

  /** Writes the wiring against the installed package's bin; resolves to the installed version. */
  private async wire(paths: AgentPaths, wiring: GatewayWiring, progress: ProgressSink): Promise<string> {
    const pkgDir = packageDir(paths);
    const manifest = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8')) as { version?: string; bin?: string | Record<string, string> };
    const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.pi;
    const cli = bin ? resolve(pkgDir, bin) : '';
    if (!bin || !cli.startsWith(pkgDir + sep)) throw new AgentError('agent.install_failed', `${PI_PACKAGE} has no pi bin inside its package`, { step: 'wire', package: PI_PACKAGE });
    const { models } = await writePiWiring(paths, wiring, cli);
    progress('wire', `pi ${manifest.version} wired to ${wiring.v1Url} (models: ${models.join(', ') || 'none yet'})`, { models });
    return manifest.version ?? '';
  }
}

async function removeInstalled(paths: AgentPaths): Promise<void> {
  for (const entry of INSTALLED) await rm(join(paths.installDir, entry), { recursive: true, force: true }).catch(() => undefined);
  const left = await readdir(paths.installDir).catch(() => null);
  if (left !== null && left.length === 0) await rm(paths.installDir, { recursive: true, force: true }).catch(() => undefined);
}
