// svc config show | validate | migrate | reload | hardware. show, validate and migrate work
// on the files directly (they must work with no server running); reload and hardware ask
// the running server.
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { leaveActivityRow } from '../../activity/inbox.js';
import { writeFileAtomic } from '../../config/atomic.js';
import { loadConfig, validateSvcToml, type ResolvedConfig } from '../../config/load.js';
import { migrateDocument, schemaVersionOf } from '../../config/migrate.js';
import type { SvcPaths } from '../../config/paths.js';
import { errorsOf, formatProblem, type ConfigProblem } from '../../config/problems.js';
import { LATEST_SCHEMA_VERSION } from '../../config/schema/svc-toml.js';
import { readTomlFile, stringifyToml } from '../../config/toml.js';
import { carryComments } from '../../config/toml-comments.js';
import type { ApiClient } from '../client.js';
import { CliExit, EXIT, print, printJson } from '../output.js';
import { hardwareSummary } from './probe.js';

type Json = { json?: boolean };

export async function configShow(paths: SvcPaths, options: Json): Promise<void> {
  const config = await loadOrExit(paths);
  if (options.json) return printJson(config.svc);
  print(`# ${paths.svcToml}, with every default filled in`);
  // TOML has no null: a disabled row cap is spelled false, or it would read back as the default.
  const shown = { ...config.svc, activity: { ...config.svc.activity, max_rows: config.svc.activity.max_rows ?? false } };
  process.stdout.write(stringifyToml(shown as unknown as Record<string, unknown>));
}

export async function configValidate(paths: SvcPaths, options: Json): Promise<void> {
  const outcome = await loadConfig(paths);
  const errors = errorsOf(outcome.problems);
  if (options.json) {
    printJson({ valid: errors.length === 0, config_root: paths.configRoot, problems: outcome.problems });
  } else {
    for (const problem of outcome.problems) print(formatProblem(problem));
    const slots = outcome.ok ? `, ${outcome.config.slots.length} slot file(s)` : '';
    print(errors.length === 0
      ? `configuration in ${paths.configRoot} is valid${slots}${outcome.problems.length ? ` (${outcome.problems.length} warning(s))` : ''}`
      : `configuration in ${paths.configRoot} has ${errors.length} error(s)`);
  }
  if (errors.length > 0) throw new CliExit(EXIT.configInvalid, '');
}

export async function configMigrate(paths: SvcPaths, options: Json & { dryRun?: boolean }): Promise<void> {
  const read = await readTomlFile(paths.svcToml, 'svc.toml');
  if (read.status === 'invalid') throw problemsExit([read.problem]);
  if (read.status === 'missing') return report(options, { migrated: false, reason: 'no svc.toml: every default applies, nothing to migrate' });
  const result = migrateDocument(read.doc);
  const version = schemaVersionOf(read.doc);
  if (version === undefined || version > LATEST_SCHEMA_VERSION) {
    // Not a version this build knows (not an integer, or newer): nothing can be migrated.
    throw problemsExit(errorsOf(validateSvcToml(read.doc).problems), EXIT.configInvalid, `cannot migrate svc.toml: its schema_version is not one this svc knows (1-${LATEST_SCHEMA_VERSION}):`);
  }
  if (result.from === result.to) return report(options, { migrated: false, reason: `svc.toml is already at schema_version ${result.to}` });
  const problems = errorsOf(validateSvcToml(result.doc).problems);
  if (problems.length > 0) throw problemsExit(problems, EXIT.failed, 'config.migration_failed: the migrated file would be invalid; svc.toml is unchanged');
  if (options.dryRun) return report(options, { migrated: false, dry_run: true, from: result.from, to: result.to, changes: result.changes });
  const backup = backupPath(paths.svcToml, result.from);
  copyFileSync(paths.svcToml, backup);
  // The TOML writer keeps no comments: they are carried over from the original text.
  const kept = carryComments(readFileSync(paths.svcToml, 'utf8'), stringifyToml(result.doc));
  await writeFileAtomic(paths.svcToml, kept.text);
  await recordCliChange(paths, 'config.migrate', 'svc.toml', { from: result.from, to: result.to, changes: result.changes, backup });
  report(options, { migrated: true, from: result.from, to: result.to, changes: result.changes, backup, ...(kept.dropped > 0 && { comments_not_kept: kept.dropped }) });
}

export async function configReload(client: ApiClient, options: Json): Promise<void> {
  const result = await client.reloadSettings();
  if (options.json) return printJson(result);
  for (const warning of result.warnings) print(warning);
  print(`configuration reloaded (${result.slots.length} slot(s))`);
}

export async function configHardware(client: ApiClient, options: Json): Promise<void> {
  const result = await client.hardware();
  if (options.json) return printJson(result);
  const { host, probe } = result;
  const hostLine = `${host.hostname} (${host.platform}/${host.arch})`;
  if (probe) {
    const now = `${host.mem_available_mb} MiB available of ${host.mem_total_mb} MiB`;
    for (const line of hardwareSummary(probe, [['host', hostLine], ['memory now', now]])) print(line);
    return;
  }
  print(`host    ${hostLine}`);
  print(`cpu     ${host.cpu_count} x ${host.cpu_model}`);
  print(`memory  ${host.mem_available_mb} MiB available of ${host.mem_total_mb} MiB`);
  print('probe   none cached yet (run `svc probe`)');
}

export async function loadOrExit(paths: SvcPaths): Promise<ResolvedConfig> {
  const outcome = await loadConfig(paths);
  if (!outcome.ok) throw problemsExit(errorsOf(outcome.problems));
  return outcome.config;
}

export function problemsExit(problems: readonly ConfigProblem[], code: number = EXIT.configInvalid, head = 'configuration is invalid:'): CliExit {
  return new CliExit(code, [head, ...problems.map((p) => `  ${formatProblem(p)}`)].join('\n'));
}

function report(options: Json, result: Record<string, unknown>): void {
  if (options.json) return printJson(result);
  if (typeof result.reason === 'string') return print(`${result.reason}; nothing to do`);
  const verb = result.dry_run ? 'would migrate' : 'migrated';
  print(`${verb} svc.toml from schema_version ${String(result.from)} to ${String(result.to)}`);
  for (const change of (result.changes as string[] | undefined) ?? []) print(`  ${change}`);
  if (result.backup) print(`backup: ${String(result.backup)}`);
  if (result.comments_not_kept) print(`${String(result.comments_not_kept)} comment line(s) stood on keys the migration renamed or removed: the backup has them`);
}

function backupPath(file: string, version: number): string {
  const base = `${file}.v${version}.bak`;
  return existsSync(base) ? `${base}.${Date.now()}` : base;
}

/**
 * A change the CLI made to the files by itself, for the activity log; best effort, honouring
 * [activity]. The gateway writes the log: the row waits in its inbox (activity/inbox.ts).
 */
export async function recordCliChange(paths: SvcPaths, action: string, target: string, details: Record<string, unknown>): Promise<void> {
  const outcome = await loadConfig(paths);
  if (outcome.ok && !outcome.config.svc.activity.enabled) return;
  // No state directory or no permission: the change itself succeeded.
  await leaveActivityRow(paths.stateRoot, { action, target, actor: 'cli', ts: new Date().toISOString(), details }).catch(() => undefined);
}
