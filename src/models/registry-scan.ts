// A scan as the running gateway makes it (POST /api/models/scan, and at start-up with
// `[models].auto_scan_on_start`): new model files are registered with source "scan", the new
// registry is swapped into the running config, and each addition is a `model.registered`
// event. The gateway is known only through RegistryHost, so this stays in the models layer;
// the scan as a command (its row) is ModelCommands.scan (models/commands.ts).
import { withRegistry } from '../config/load.js';
import type { ScanModelsPayload } from '../protocol/models.js';
import type { RegistryHost } from './registry-host.js';
import { scanModels, scanSummaryLine, type ScanResult } from './service.js';

/** Scan and register; the caller runs it in the writer queue (the registry is read, then written). */
export async function scanIntoRegistry(host: RegistryHost): Promise<ScanResult> {
  const result = await scanModels(host.config);
  if (result.written) host.replaceConfig(withRegistry(host.config, result.registry));
  for (const { id, path } of result.added) {
    host.events.publish({ type: 'model.registered', source: 'models', message: `model ${id} registered by a scan (${path})`, data: { model: id, path, source: 'scan' } });
  }
  return result;
}

/** The answer of POST /api/models/scan: the result without the registry it wrote. */
export function scanPayload(result: ScanResult): ScanModelsPayload {
  const { registry: _registry, written: _written, ...payload } = result;
  return payload;
}

/** A scan's activity row details: counts and ids, not every file. */
export function scanDetails(result: ScanResult): Record<string, unknown> {
  return { roots: result.roots, found: result.found, added: result.added.map((a) => a.id), already_registered: result.already_registered, sidecars: result.sidecars.length, skipped: result.skipped.length };
}

/**
 * The start-up scan (`[models].auto_scan_on_start`): the scan command, which adds new model
 * files under the roots, and one summary line in the log. A failure is logged, never fatal.
 */
export async function scanAtStart(host: { readonly config: RegistryHost['config']; readonly modelCommands: { scan(origin: { actor: string }, atStart: boolean): Promise<ScanResult> } }, log: (line: string) => void): Promise<void> {
  if (!host.config.svc.models.auto_scan_on_start) return;
  try {
    const result = await host.modelCommands.scan({ actor: 'system' }, true);
    log(`svc: ${scanSummaryLine(result)}`);
    for (const warning of result.warnings) log(`svc: models: warning: ${warning}`);
  } catch (error) {
    log(`svc: warning: model scan at start failed (${(error as Error).message}); the registry is unchanged`);
  }
}
