// Installing, uninstalling and changing tool server records (McpService's part that writes).
// Every change is validated as the file would be at load, secrets are checked against api.env,
// nothing is written when anything is wrong, and each change is an event and an activity row.
import type { TomlDoc } from '../config/toml.js';
import { SvcError } from '../protocol/errors.js';
import type { McpConfigPatch, McpInstallRequest, McpServerRecord, McpServerView, ToolPolicyLists } from '../protocol/mcp.js';
import { planInstall } from './install-plan.js';
import { npmInstall } from './npm-install.js';
import { checkBundledDoc, removeStateFolder, checkRecordDoc, mcpStatePath, missingSecrets, recordDoc, recordFileName, removeRecord, writeRecordDoc } from './records.js';
import type { McpInternals } from './service-types.js';
import { bundledView, installedView } from './views.js';
import { VERSION } from '../lib/version.js';

export class McpRecordChanges {
  /** Ids being installed: a second install of the same id is refused while the first runs. */
  private readonly installing = new Set<string>();

  constructor(private readonly x: McpInternals) {}

  async install(req: McpInstallRequest, actor = 'api'): Promise<McpServerView> {
    await this.x.loaded();
    const plan = await planInstall(req, this.x.deps.env);
    const { id } = plan;
    if (this.x.servers.has(id) || this.installing.has(id)) throw new SvcError('mcp.already_installed', `a tool server with id ${id} is already installed`, { id });
    await this.checkSecrets(id, plan.record.secrets);
    this.installing.add(id);
    const stateDir = mcpStatePath(this.x.deps.paths, id);
    try {
      let record: McpServerRecord = plan.record;
      if (plan.npm) {
        const installed = await npmInstall(stateDir, plan.npm.package, plan.npm.version, this.x.deps.env);
        record = { ...record, command: installed.command, args: [...installed.args, ...record.args], source_url: `https://www.npmjs.com/package/${plan.npm.package}` };
      }
      const checked = this.check(id, recordDoc(record));
      await this.x.writes.run(() => writeRecordDoc(this.x.deps.paths, id, recordDoc(checked)));
      const sup = this.x.supervise(checked);
      this.x.deps.publish({ type: 'mcp.installed', source: `mcp:${id}`, message: `tool server ${id} installed from ${checked.spec}`, data: { server: id, transport: checked.transport, spec: checked.spec } });
      this.x.deps.record({ action: 'mcp.install', target: id, actor, details: { spec: checked.spec, transport: checked.transport } });
      // Started in the background: the install answers with the record, the state follows as events.
      if (checked.enabled) sup.start('installed').catch(() => undefined);
      return installedView(sup);
    } catch (error) {
      if (plan.npm && !this.x.servers.has(id)) await removeStateFolder(stateDir);
      throw error;
    } finally {
      this.installing.delete(id);
    }
  }

  async uninstall(id: string, actor = 'api'): Promise<{ uninstalled: string }> {
    await this.x.loaded();
    const sup = this.x.installed(id, 'uninstalled');
    await sup.stop('uninstall');
    this.x.servers.delete(id);
    await this.x.writes.run(() => removeRecord(this.x.deps.paths, id));
    await removeStateFolder(mcpStatePath(this.x.deps.paths, id));
    this.x.deps.publish({ type: 'mcp.uninstalled', source: `mcp:${id}`, message: `tool server ${id} uninstalled`, data: { server: id } });
    this.x.deps.record({ action: 'mcp.uninstall', target: id, actor });
    return { uninstalled: id };
  }

  /** env and secrets replace their tables; a running server restarts to take them. */
  async patchConfig(id: string, patch: McpConfigPatch, actor = 'api'): Promise<McpServerView> {
    await this.x.loaded();
    const sup = this.x.installed(id, 'reconfigured');
    const changes: TomlDoc = {};
    for (const key of ['env', 'secrets', 'enabled', 'args', 'url'] as const) if (patch[key] !== undefined) changes[key] = patch[key];
    const next = this.check(id, { ...recordDoc(sup.record), ...changes });
    await this.checkSecrets(id, next.secrets);
    await this.x.writes.run(() => writeRecordDoc(this.x.deps.paths, id, recordDoc(next)));
    const wasRunning = sup.state === 'ready' || sup.state === 'starting';
    sup.reconfigure(next);
    this.changed(id, Object.keys(changes), actor);
    if (!next.enabled) await sup.stop('disabled', true);
    else if (wasRunning) await sup.stop('config changed').then(() => sup.start('config changed')).catch(() => undefined);
    else if (sup.state === 'disabled') await sup.start('enabled').catch(() => undefined);
    return installedView(sup);
  }

  /** The tool policy: lists given replace theirs; bundled servers store it in their own file. */
  async patchTools(id: string, patch: Partial<ToolPolicyLists>, actor = 'api'): Promise<McpServerView> {
    await this.x.loaded();
    const picked: Partial<ToolPolicyLists> = {};
    for (const key of ['allow', 'gated', 'blocked', 'default'] as const) if (patch[key] !== undefined) (picked as Record<string, unknown>)[key] = patch[key];
    const bundled = this.x.bundled.get(id);
    if (bundled) {
      const tools = { ...bundled.policy, ...picked };
      const checked = checkBundledDoc(id, { tools });
      if (!checked.ok) throw invalid(checked.problems);
      await this.x.writes.run(() => writeRecordDoc(this.x.deps.paths, id, { tools: checked.value as unknown as TomlDoc }));
      bundled.policy = checked.value;
      this.changed(id, Object.keys(picked).map((k) => `tools.${k}`), actor);
      return bundledView(id, bundled.tools, bundled.policy, VERSION);
    }
    const sup = this.x.installed(id, 'changed');
    const next = this.check(id, { ...recordDoc(sup.record), tools: { ...sup.record.tools, ...picked } });
    await this.x.writes.run(() => writeRecordDoc(this.x.deps.paths, id, recordDoc(next)));
    sup.reconfigure(next);
    this.changed(id, Object.keys(picked).map((k) => `tools.${k}`), actor);
    return installedView(sup);
  }

  private changed(id: string, keys: string[], actor: string): void {
    this.x.deps.publish({ type: 'mcp.updated', source: `mcp:${id}`, message: `tool server ${id}: ${keys.join(', ')} changed`, data: { server: id, keys } });
    this.x.deps.record({ action: 'mcp.update', target: id, actor, details: { keys } });
  }

  private check(id: string, doc: TomlDoc): McpServerRecord {
    const checked = checkRecordDoc(id, doc);
    if (!checked.ok) throw invalid(checked.problems);
    return checked.value;
  }

  /** A secret naming an api.env key that does not exist is refused with its path. */
  private async checkSecrets(id: string, secrets: Record<string, string>): Promise<void> {
    if (Object.keys(secrets).length === 0) return;
    const missing = missingSecrets(id, secrets, await this.x.deps.readApiEnv());
    if (missing.length > 0) throw invalid(missing);
  }
}

function invalid(problems: ReadonlyArray<{ file: string; path: string; message: string }>): SvcError {
  const file = problems[0]?.file ?? recordFileName('server');
  return new SvcError('config.invalid', `${file}: ${problems.map((p) => `${p.path ? `${p.path}: ` : ''}${p.message}`).join('; ')}`, { problems: problems.map((p) => ({ ...p })) });
}
