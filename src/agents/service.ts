// The agents service (ctx.agents; docs/agents.md): the registry of drivers (pi, hermes), the
// agent files, the install/switch/upgrade jobs and uninstall. A driver owns what it installs;
// this service owns the file that says an agent is installed, the single pick among daemon
// agents, the rollback of a failed switch, and the events and activity rows of every change.
import { readdir } from 'node:fs/promises';
import type { ActivityInput } from '../activity/store.js';
import { agentDirs, agentsConfigDir, type AgentDirs } from '../config/agent-paths.js';
import type { SvcPaths } from '../config/paths.js';
import { formatProblem } from '../config/problems.js';
import type { AgentInstallRequest, AgentJob, AgentListPayload, AgentUninstallPayload, AgentView } from '../protocol/agents.js';
import { AgentError } from '../protocol/errors.js';
import type { EventInput } from '../protocol/events.js';
import { type AgentFile, readAgentFile, removeAgentFile, seedAgentFile, writeAgentFile } from './agent-file.js';
import type { AgentDriver, GatewayWiring, ProgressSink } from './driver.js';
import { AgentJobs } from './jobs.js';
import { BUNDLED_AGENTS, isAgentName } from './names.js';
import { own } from '../lib/own.js';

export interface AgentServiceDeps {
  paths: SvcPaths;
  publish: (event: EventInput) => void;
  record: (entry: ActivityInput) => void;
  /** The gateway's URLs, an inference token in auth mode, its chat models (asked at each install). */
  wiring: (agent: string) => Promise<GatewayWiring>;
  /** Takes back what wiring gave the agent (its agent-<name> tokens); answers how many tokens. */
  unwire: (agent: string) => Promise<number>;
}

/** Throws agent.invalid_name or agent.unknown unless `name` is a bundled agent whose driver is here. */
export function checkAgentName(name: unknown, drivers: ReadonlyMap<string, AgentDriver>): string {
  if (typeof name !== 'string' || name === '') throw new AgentError('agent.name_required', 'name the agent to install: one of ' + [...drivers.keys()].join(', '), { field: 'name' });
  if (!isAgentName(name)) throw new AgentError('agent.invalid_name', `invalid agent name ${JSON.stringify(name.slice(0, 80))}: expected lowercase letters, digits and "-" (at most 32)`, { name: name.slice(0, 80), field: 'name' });
  if (!drivers.has(name)) throw new AgentError('agent.unknown', `no agent is called ${name}; svc installs ${[...drivers.keys()].join(', ')}`, { name, known: [...drivers.keys()] });
  return name;
}

export class AgentService {
  readonly drivers = new Map<string, AgentDriver>();
  readonly jobs: AgentJobs;

  constructor(private readonly deps: AgentServiceDeps) {
    this.jobs = new AgentJobs(deps);
  }

  /** A driver for one bundled agent (pi here; agent-hermes registers hermes). */
  registerDriver(driver: AgentDriver): void {
    this.drivers.set(driver.name, driver);
  }

  driver(name: unknown): AgentDriver {
    return this.drivers.get(checkAgentName(name, this.drivers))!;
  }

  dirs(name: string): AgentDirs {
    return agentDirs(this.deps.paths, name);
  }

  /** The agents with a file in <config>/agents (installed or broken). */
  async installedNames(): Promise<string[]> {
    const entries = await readdir(agentsConfigDir(this.deps.paths)).catch(() => [] as string[]);
    return entries.filter((f) => f.endsWith('.toml')).map((f) => f.slice(0, -5)).filter(isAgentName).sort();
  }

  async list(): Promise<AgentListPayload> {
    const names = new Set([...(await this.installedNames()), ...[...this.drivers.keys()].filter((n) => this.jobs.runningFor(n))]);
    const agents = await Promise.all([...names].map((n) => this.view(n)));
    const available = [...this.drivers.values()].map((d) => ({ name: d.name, kind: d.kind }));
    return { agents, count: agents.length, available };
  }

  async view(name: string): Promise<AgentView> {
    const dirs = this.dirs(name);
    const read = await readAgentFile(dirs.configPath, name);
    const driver = this.drivers.get(name);
    const kind = driver?.kind ?? (read.status === 'ok' ? read.file.agent.kind : undefined) ?? own(BUNDLED_AGENTS, name) ?? 'cli';
    const problems: string[] = read.status === 'invalid' ? read.problems.map(formatProblem) : [];
    const version = read.status === 'missing' || !driver ? null : await driver.installedVersion(dirs).catch(() => null);
    if (read.status !== 'missing' && !driver) problems.push(`this gateway has no driver for ${name}`);
    if (read.status === 'ok' && driver && version === null) problems.push(`${name}'s install under ${dirs.installDir} is missing or does not run: svc agent install ${name} again (uninstall first)`);
    const file = read.status === 'ok' ? read.file : null;
    return {
      name, kind, status: read.status === 'missing' ? 'not_installed' : problems.length > 0 ? 'broken' : 'installed',
      installed_at: file?.agent.installed_at || null, version: version ?? (file?.agent.version || null), version_pin: file?.agent.version_pin ?? false,
      data_dir: file?.data_dir || dirs.dataDir, install_dir: dirs.installDir, config_path: dirs.configPath,
      unit_active: null, job: this.jobs.lastFor(name), problems,
    };
  }

  /** Starts an install (or a switch) job: the checks run first, so a refusal writes nothing. */
  async install(request: AgentInstallRequest, actor: string): Promise<AgentJob> {
    const driver = this.driver(request.name);
    const name = driver.name;
    const dirs = this.dirs(name);
    if (this.jobs.runningFor(name)) throw new AgentError('agent.already_installed', `a job of ${name} is running`, { name, job: this.jobs.runningFor(name)!.id });
    if ((await readAgentFile(dirs.configPath, name)).status !== 'missing') {
      throw new AgentError('agent.already_installed', `${name} is installed already: svc agent upgrade ${name}, or uninstall it first`, { name, config_path: dirs.configPath });
    }
    const other = driver.kind === 'daemon' ? await this.installedDaemon(name) : null;
    if (other && !request.switch) throw new AgentError('agent.switch_required', `${other.name} is the installed daemon agent and only one may be: svc agent install ${name} --switch replaces it`, { name, installed: other.name });
    if (other && this.jobs.runningFor(other.name)) throw new AgentError('agent.already_installed', `a job of ${other.name} is running`, { name: other.name });
    const options = { version: request.version, offline: request.offline, adopt: request.adopt, dryRun: request.dry_run, repair: request.repair, skipPhases: request.skip_phases };
    return this.jobs.start(name, other ? 'switch' : 'install', actor, async (progress) => {
      const wiring = await this.deps.wiring(name);
      try {
        const version = other ? await this.switchTo(driver, other, wiring, options, progress) : await this.installOne(driver, wiring, options, progress);
        if (options.dryRun) await this.deps.unwire(name); // a dry run leaves nothing, its token included
        return version;
      } catch (error) {
        await this.deps.unwire(name).catch(() => undefined); // a failed install keeps no token
        throw error;
      }
    }, other?.name ?? null);
  }

  /** The daemon agent installed besides `except`, with its file (for the rollback). */
  private async installedDaemon(except: string): Promise<{ name: string; file: AgentFile } | null> {
    for (const name of await this.installedNames()) {
      if (name === except) continue;
      const read = await readAgentFile(this.dirs(name).configPath, name);
      const kind = this.drivers.get(name)?.kind ?? (read.status === 'ok' ? read.file.agent.kind : undefined) ?? own(BUNDLED_AGENTS, name);
      if (kind === 'daemon' && read.status === 'ok') return { name, file: read.file };
    }
    return null;
  }

  private async installOne(driver: AgentDriver, wiring: GatewayWiring, options: Parameters<AgentDriver['install']>[2], progress: ProgressSink): Promise<string> {
    const dirs = this.dirs(driver.name);
    const { version } = await driver.install(dirs, wiring, options, progress);
    if (!options.dryRun) await writeAgentFile(dirs.configPath, seedAgentFile(driver.name, driver.kind, version, dirs.dataDir));
    return version;
  }

  /** Uninstall the daemon agent `previous`, install `driver`'s; a failure puts `previous` back (same version, same file). */
  private async switchTo(driver: AgentDriver, previous: { name: string; file: AgentFile }, wiring: GatewayWiring, options: Parameters<AgentDriver['install']>[2], progress: ProgressSink): Promise<string> {
    const before = this.driver(previous.name);
    const beforeDirs = this.dirs(previous.name);
    progress('switch', `uninstalling ${previous.name}`);
    await before.uninstall(beforeDirs, { purge: false });
    await removeAgentFile(beforeDirs.configPath);
    await this.deps.unwire(previous.name);
    try {
      return await this.installOne(driver, wiring, options, progress);
    } catch (error) {
      progress('rollback', `${driver.name} failed; installing ${previous.name} again`);
      try {
        // Its own wiring: the token it had was revoked with the uninstall, and the new agent's is not its.
        await before.install(beforeDirs, await this.deps.wiring(previous.name), { version: previous.file.agent.version || undefined, repair: true }, progress);
        await writeAgentFile(beforeDirs.configPath, previous.file);
        progress('rollback', `${previous.name} is back`);
      } catch (rollback) {
        if (error instanceof AgentError) error.details.rollback_error = (rollback as Error).message;
        progress('rollback', `${previous.name} could not be put back: ${(rollback as Error).message}`);
      }
      throw error;
    }
  }

  /** Starts an upgrade job (agent.not_installed, agent.upgrade_unsupported first). */
  async upgrade(name: string, to: string | undefined, actor: string): Promise<AgentJob> {
    const driver = this.driver(name);
    const dirs = this.dirs(name);
    const read = await readAgentFile(dirs.configPath, name);
    if (read.status === 'missing') throw new AgentError('agent.not_installed', `${name} is not installed: svc agent install ${name}`, { name });
    if (read.status === 'invalid') throw new AgentError('agent.file_invalid', `${dirs.configPath} does not validate: ${read.problems.map(formatProblem).join('; ')}`, { name, problems: read.problems });
    if (!driver.upgrade) throw new AgentError('agent.upgrade_unsupported', `${name} has no upgrade`, { name });
    if (this.jobs.runningFor(name)) throw new AgentError('agent.already_installed', `a job of ${name} is running`, { name });
    const upgrade = driver.upgrade.bind(driver);
    return this.jobs.start(name, 'upgrade', actor, async (progress, job) => {
      const from = await driver.installedVersion(dirs).catch(() => null);
      const { version } = await upgrade(dirs, await this.deps.wiring(name), to, progress);
      await writeAgentFile(dirs.configPath, { ...read.file, agent: { ...read.file.agent, version } });
      this.deps.publish({ type: 'agent.upgraded', source: `agent:${name}`, message: `${name} ${from ?? '?'} -> ${version}`, data: { agent: name, job: job.id, from, to: version } });
      return version;
    });
  }

  /** Removes what the driver installed and the agent file; 207 agent.uninstall_incomplete when something stays. */
  async uninstall(name: string, purge: boolean, actor: string): Promise<AgentUninstallPayload> {
    const driver = this.driver(name);
    const dirs = this.dirs(name);
    if (this.jobs.runningFor(name)) throw new AgentError('agent.already_installed', `a job of ${name} is running; wait for it`, { name });
    const read = await readAgentFile(dirs.configPath, name);
    const installed = read.status !== 'missing' || (await driver.installedVersion(dirs).catch(() => null)) !== null;
    if (!installed) return { name, status: 'not_installed', removed: [], kept: [], tokens_revoked: await this.deps.unwire(name) };
    const report = await driver.uninstall(dirs, { purge });
    await removeAgentFile(dirs.configPath);
    const tokensRevoked = await this.deps.unwire(name);
    const removed = [...report.removed, dirs.configPath];
    const kept = purge ? [] : [dirs.dataDir];
    const incomplete = report.residual.length > 0;
    this.deps.publish({ type: 'agent.uninstalled', source: `agent:${name}`, severity: incomplete ? 'warn' : 'info', message: `${name} uninstalled${incomplete ? ' (something was left)' : ''}`, data: { agent: name, purge, removed, residual: report.residual, tokens_revoked: tokensRevoked } });
    this.deps.record({ action: 'agent.uninstall', target: name, actor, outcome: incomplete ? 'error' : 'ok', details: { purge, removed, residual: report.residual, tokens_revoked: tokensRevoked } });
    if (incomplete) {
      throw new AgentError('agent.uninstall_incomplete', `${name} was uninstalled but ${report.residual.length} path(s) are left: ${report.residual.map((r) => `${r.path} (${r.reason})`).join('; ')}`, { status: 'partially_uninstalled', removed, residual: report.residual, tokens_revoked: tokensRevoked });
    }
    return { name, status: 'uninstalled', removed, kept, tokens_revoked: tokensRevoked };
  }
}
