// hermes behind the seam (src/agents/driver.ts): install is a provisioning run (the 16
// phases), then the unit svc-agent@hermes.service rendered into the install folder; upgrade
// asks for a version and repairs; uninstall removes the install folder but the home (its
// personas, its sessions) unless purged.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/atomic.js';
import { SvcError } from '../../protocol/errors.js';
import type { AgentDriver, AgentPaths, GatewayWiring, InstallOptions, ProgressSink, UninstallReport } from '../driver.js';
import { provisionHermes, readProvision } from './provision.js';
import { runtimeLocation } from './runtime.js';
import type { ProvisionDeps, ProvisionOptions, ProvisionResult } from './types.js';
import { agentUnitName, renderAgentUnit } from './unit.js';

/** What the gateway lends every run besides the paths and the wiring. */
export type HermesLoans = Omit<ProvisionDeps, 'paths' | 'wiring'>;

export async function runProvision(loans: HermesLoans, paths: AgentPaths, wiring: GatewayWiring, options: ProvisionOptions, progress?: ProgressSink): Promise<ProvisionResult> {
  const result = await provisionHermes({ ...loans, paths, wiring }, options);
  for (const [phase, record] of Object.entries(result.provision.phases)) progress?.(phase, `${phase}: ${record.status}${record.reason ? ` (${record.reason})` : ''}`, { status: record.status });
  if (!options.dryRun && result.ok) {
    const runtime = runtimeLocation(paths.installDir, loans.env).path;
    await writeFileAtomic(join(paths.installDir, agentUnitName('hermes')), renderAgentUnit({ agent: 'hermes', runtime, paths, user: null }));
  }
  return result;
}

function failure(result: ProvisionResult): SvcError {
  const reasons = result.provision.errors.map((e) => `${e.phase}: ${e.reason}`).join('; ');
  return new SvcError('agent.install_failed', `hermes provisioning failed: ${reasons}`, { errors: result.provision.errors, provision: result.provision_path });
}

/** `loans` is asked at each run (memory may have been switched on or off in between). */
export function createHermesDriver(loans: () => HermesLoans): AgentDriver {
  return {
    name: 'hermes',
    kind: 'daemon',
    async install(paths, wiring, options: InstallOptions, progress) {
      const result = await runProvision(loans(), paths, wiring, options, progress);
      if (!result.ok) throw failure(result);
      return { version: result.provision.hermes_version ?? 'unknown' };
    },
    async upgrade(paths, wiring, to, progress) {
      const result = await runProvision(loans(), paths, wiring, { repair: true, ...(to && { version: to }) }, progress);
      if (!result.ok) throw failure(result);
      return { version: result.provision.hermes_version ?? 'unknown' };
    },
    async uninstall(paths, { purge }): Promise<UninstallReport> {
      const removed: string[] = [];
      const residual: UninstallReport['residual'] = [];
      for (const entry of await readdir(paths.installDir).catch(() => [] as string[])) {
        const path = join(paths.installDir, entry);
        if (path === paths.dataDir && !purge) continue;
        await rm(path, { recursive: true, force: true }).then(() => removed.push(path), (error: Error) => residual.push({ path, reason: error.message }));
      }
      if (purge) await rm(paths.installDir, { recursive: true, force: true }).catch((error: Error) => residual.push({ path: paths.installDir, reason: error.message }));
      return { removed, residual };
    },
    async installedVersion(paths) {
      const record = await readProvision(paths.stateDir);
      return record && record.errors.length === 0 ? record.hermes_version : null;
    },
  };
}
