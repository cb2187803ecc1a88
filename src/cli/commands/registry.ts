// svc registry export|import, svc migrate model-layout, svc capabilities migrate: local
// commands on the files of this host's home (as `svc config migrate` is). A running gateway
// picks the registry up on `svc config reload`.
import { join } from 'node:path';
import { applyCapabilityChanges, planCapabilitiesMigration } from '../../config/capabilities-migrate.js';
import { writeFileAtomic } from '../../config/atomic.js';
import { errorsOf } from '../../config/problems.js';
import { loadConfig } from '../../config/load.js';
import { applyModelLayout, linkStates, planModelLayout } from '../../config/model-layout.js';
import type { SvcPaths } from '../../config/paths.js';
import { exportRegistry, importRegistry } from '../../config/registry-backup.js';
import { RegistryFileSchema } from '../../config/schema/registry.js';
import { readTomlFile, stringifyToml } from '../../config/toml.js';
import { validateDocument } from '../../config/validate.js';
import { SvcError } from '../../protocol/errors.js';
import { CliExit, EXIT, print, printJson, table } from '../output.js';
import { problemsExit, recordCliChange } from './config.js';

type Json = { json?: boolean };

/** A refusal from the files layer as the CLI reports it: `<code>: <message>` and its exit code. */
async function local<T>(work: () => Promise<T>, exitFor: (code: string) => number = () => EXIT.failed): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SvcError) throw new CliExit(exitFor(error.code), `${error.code}: ${error.message}`);
    throw error;
  }
}

export async function registryExport(paths: SvcPaths, tarball: string, options: Json): Promise<void> {
  const result = await local(() => exportRegistry(paths.registryToml, tarball));
  if (options.json) return printJson({ tarball, ...result });
  print(`exported the registry (${result.models} model(s)) to ${tarball}`);
}

export async function registryImport(paths: SvcPaths, tarball: string, options: Json & { force?: boolean; dest?: string }): Promise<void> {
  const dest = options.dest ?? paths.registryToml;
  const result = await local(() => importRegistry(tarball, dest, options.force ?? false), (code) => (code === 'model.backup_exists' ? EXIT.failed : EXIT.usage));
  await recordCliChange(paths, 'registry.import', dest, { tarball, from: result.from, models: result.models, replaced: result.replaced });
  if (options.json) return printJson({ dest, ...result });
  print(`restored ${dest} from ${tarball} (${result.from}, ${result.models} model(s))${result.replaced ? ', replacing the one there' : ''}`);
  print('a running gateway reads it on `svc config reload`');
}

export async function migrateModelLayout(paths: SvcPaths, options: Json & { apply?: boolean; force?: boolean; registry?: string; mountRoot?: string; canonicalRoot?: string }): Promise<void> {
  const file = options.registry ?? paths.registryToml;
  const read = await readTomlFile(file, file);
  if (read.status === 'invalid') throw problemsExit([read.problem]);
  const checked = validateDocument(RegistryFileSchema, read.status === 'ok' ? read.doc : {}, file);
  if (!checked.value) throw problemsExit(errorsOf(checked.problems));
  const roots = { mount: options.mountRoot ?? '/mnt/ai-models', canonical: options.canonicalRoot ?? join(paths.stateRoot, 'models') };
  const links = planModelLayout(checked.value, roots, false, () => ({ kind: 'missing' })).flatMap((s) => (s.link ? [s.link] : []));
  const states = await linkStates(links);
  const steps = planModelLayout(checked.value, roots, options.force ?? false, (link) => states.get(link) ?? { kind: 'missing' });
  const applied = options.apply ? await applyModelLayout(steps) : 0;
  if (options.json) return printJson({ ...roots, applied: options.apply ?? false, created: applied, steps });
  if (steps.length === 0) return print(`no registry model lies under ${roots.mount}; nothing to link`);
  for (const line of table(['MODEL', 'ACTION', 'LINK', 'TARGET', 'REASON'], steps.map((s) => [s.model, s.action, s.link ?? '-', s.target, s.reason]))) print(line);
  const pending = steps.filter((s) => s.action === 'create' || s.action === 'overwrite').length;
  print(options.apply ? `created ${applied} link(s) under ${roots.canonical}` : `dry run: would create ${pending} link(s) under ${roots.canonical}; pass --apply to create them`);
}

export async function capabilitiesMigrate(paths: SvcPaths, options: Json & { dryRun?: boolean }): Promise<void> {
  const outcome = await loadConfig(paths);
  if (!outcome.ok) throw problemsExit(errorsOf(outcome.problems));
  const file = join(paths.configRoot, 'capabilities.toml');
  const read = await readTomlFile(file, 'capabilities.toml');
  if (read.status !== 'ok') return options.json ? printJson({ changes: [], written: false }) : print('no capabilities.toml; nothing to migrate');
  const slotModel = (slot: string) => outcome.config.slots.find((s) => s.name === slot)?.config.model.default || null;
  const changes = planCapabilitiesMigration(outcome.config.capabilities, outcome.config.registry, slotModel);
  const write = changes.length > 0 && !options.dryRun;
  if (write) {
    await writeFileAtomic(file, stringifyToml(applyCapabilityChanges(read.doc, changes)));
    await recordCliChange(paths, 'capabilities.migrate', 'capabilities.toml', { changes });
  }
  if (options.json) return printJson({ changes, written: write });
  if (changes.length === 0) return print('nothing to migrate');
  for (const line of table(['CAPABILITY', 'SLOT', 'MODEL', 'KEY', 'BEFORE', 'AFTER', 'REASON'], changes.map((c) => [c.capability, c.slot, c.model ?? '-', c.key, c.before ?? '-', c.after ?? '-', c.reason]))) print(line);
  print(options.dryRun ? `--dry-run: would rewrite ${changes.length} selection(s) in ${file}; run without --dry-run to write` : `rewrote ${changes.length} selection(s) in ${file}`);
}

