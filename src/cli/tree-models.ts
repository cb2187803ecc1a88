// The `svc` commands over configuration and models: config, model (with pulls), profile,
// registry, migrate and capabilities. Registration only: each action loads its command's
// module when it runs (start-up, docs/performance.md).
import type { Command } from 'commander';
import type { ApiClient } from './client.js';
import { json, paths, positiveInt } from './options.js';

const configCommands = () => import('./commands/config.js');
const modelCommands = () => import('./commands/model.js');
const pullCommands = () => import('./commands/model-pull.js');

/** `svc config …` and `svc model …` (pulls and search too). */
export function registerConfigCommands(program: Command, client: () => ApiClient): void {
  const config = program.command('config').description('inspect, edit and check the configuration');
  config.command('show').description('print svc.toml with every default filled in').addOption(json()).action(async (o) => (await configCommands()).configShow(paths(), o));
  config.command('validate').description('check every configuration file and print each problem with its path').addOption(json()).action(async (o) => (await configCommands()).configValidate(paths(), o));
  config.command('edit [file]').description('edit svc.toml (or another config file) in $EDITOR and validate it').action(async (file?: string) => (await import('./commands/config-edit.js')).configEdit(paths(), file));
  config.command('migrate').description('migrate svc.toml to the latest schema_version, keeping a backup')
    .option('--dry-run', 'show what would change', false).addOption(json()).action(async (o) => (await configCommands()).configMigrate(paths(), o));
  config.command('reload').description('make the running server re-read its configuration').addOption(json()).action(async (o) => (await configCommands()).configReload(client(), o));
  config.command('hardware').description('show the host hardware the server sees').addOption(json()).action(async (o) => (await configCommands()).configHardware(client(), o));

  const model = program.command('model').description('the model registry: list, show, register, remove, assign');
  model.command('list').description('list registered models').addOption(json()).action(async (o) => (await modelCommands()).modelList(client(), o));
  model.command('show <ref>').description('show one model (ref: its id, or its exact name)').addOption(json()).action(async (ref: string, o) => (await modelCommands()).modelShow(client(), ref, o));
  model.command('register <id>').description('add a model file to the registry')
    .requiredOption('-p, --path <path>', 'absolute path of the model file')
    .option('--name <name>', 'display name')
    .option('--license <license>', 'license (default: unknown)')
    .option('-f, --force', 'register a .gguf file that does not start with the GGUF magic (for an engine that takes another format)', false)
    .action(async (id: string, o) => (await modelCommands()).modelRegister(client(), id, o));
  model.command('rm <ref>').description('remove a model from the registry (the file is kept)')
    .option('-f, --force', 'remove it even while slots use it as their default', false)
    .action(async (ref: string, o) => (await modelCommands()).modelRemove(client(), ref, o));
  model.command('assign <ref>').description("set a slot's default model without loading it")
    .requiredOption('-s, --slot <name>', 'the slot')
    .action(async (ref: string, o) => (await modelCommands()).modelAssign(client(), ref, o));
  model.command('pull <ref>').description('download a model from Hugging Face (org/repo[:quant], org/repo/file.gguf, hf://…, https://…, a catalogue name) and register it')
    .option('--id <id>', 'registry id (default: derived from the ref)')
    .option('--dry-run', 'print the plan (files, sizes, SHA-256, commit, memory fit, disk) and fetch nothing', false)
    .option('-f, --force', 'pull a model the fit check says will not fit in memory', false)
    .option('-s, --slot <name>', 'make it this slot\'s default model when done')
    .option('--context <n>', 'the context the memory fit assumes (default: native, at most 8192)', (v) => positiveInt(v, '--context'))
    .addOption(json())
    .action(async (ref: string, o) => (await pullCommands()).modelPull(client(), ref, o));
  model.command('pulls').description('list pull jobs (every unfinished one, the newest 50 finished)').addOption(json()).action(async (o) => (await pullCommands()).modelPulls(client(), o));
  model.command('cancel <id>').description('cancel a pull (its parts stay on disk, so pulling again resumes)')
    .option('--discard', 'also remove the parts already downloaded', false)
    .addOption(json())
    .action(async (id: string, o) => (await pullCommands()).modelCancel(client(), id, o));
  model.command('search <text>').description('search the Hugging Face endpoint for GGUF repos, with their quants and sizes')
    .option('-n, --limit <n>', 'most results (1-100)', (v) => positiveInt(v, '--limit'), 20)
    .addOption(json())
    .action(async (text: string, o) => (await pullCommands()).modelSearch(client(), text, o));
}

/** `svc profile …`: the seeds and profiles.toml. */
export function registerProfileCommands(program: Command, client: () => ApiClient): void {
  const profileCommands = () => import('./commands/profile.js');
  const profileOptions = (command: Command) => command
    .option('--image <ref>', 'container image ("" for engines run as processes)')
    .option('--device-class <class>', 'gpu, cpu, npu or img')
    .option('--flags <flags>', 'engine flags (no model, port, host or context flags)')
    .option('--mtp', 'opt slots into MTP in auto mode')
    .option('--no-mtp', 'do not')
    .option('--backend <backend>', 'rocm, vulkan, cuda, or none')
    .option('--intent <text>', 'a human label')
    .option('--quant <text>', 'informational')
    .addOption(json());
  const profile = program.command('profile').description('engine templates: the 12 seeds and your own (profiles.toml)');
  profile.command('list').description('list profiles').addOption(json()).action(async (o) => (await profileCommands()).profileList(client(), o));
  profile.command('show <name>').description('show one profile').addOption(json()).action(async (name: string, o) => (await profileCommands()).profileShow(client(), name, o));
  profileOptions(profile.command('create <name>').description('create a profile')).action(async (name: string, o) => (await profileCommands()).profileCreate(client(), name, o));
  profileOptions(profile.command('edit <name>').description('change a profile (not a seed: clone it)'))
    .option('--restart', 'restart the running slots that use it', false)
    .action(async (name: string, o) => (await profileCommands()).profileEdit(client(), name, o));
  profile.command('clone <name> <new-name>').description('copy a profile (a seed too) under a new name').addOption(json())
    .action(async (name: string, to: string, o) => (await profileCommands()).profileClone(client(), name, to, o));
  profile.command('delete <name>').description('delete a profile').option('-f, --force', 'even while slots use it', false).addOption(json())
    .action(async (name: string, o) => (await profileCommands()).profileDelete(client(), name, o));
}

/** `svc registry …`, `svc migrate model-layout`, `svc capabilities migrate`: files on this host, no gateway needed. */
export function registerRegistryCommands(program: Command): void {
  const registryCommands = () => import('./commands/registry.js');
  const registry = program.command('registry').description('back up and restore the model registry (registry.toml)');
  registry.command('export <tarball>').description('write registry.toml into a .tar.gz backup').addOption(json())
    .action(async (tarball: string, o) => (await registryCommands()).registryExport(paths(), tarball, o));
  registry.command('import <tarball>').description('restore registry.toml from a backup (links, devices and paths outside refused)')
    .option('-f, --force', 'replace an existing registry.toml', false)
    .option('--dest <file>', 'where to write registry.toml (default: the home\'s)')
    .addOption(json())
    .action(async (tarball: string, o) => (await registryCommands()).registryImport(paths(), tarball, o));
  program.command('migrate').description('one-off migrations of files on this host')
    .command('model-layout').description('link models under an old mount root into the canonical layout (dry run unless --apply; moves nothing)')
    .option('--apply', 'create the links', false)
    .option('-f, --force', 'replace links that point elsewhere', false)
    .option('--registry <file>', 'registry.toml to read (default: the home\'s)')
    .option('--mount-root <dir>', 'where the models lie (default /mnt/ai-models)')
    .option('--canonical-root <dir>', 'where the layout goes (default: <state>/models)')
    .addOption(json())
    .action(async (o) => (await registryCommands()).migrateModelLayout(paths(), o));
  program.command('capabilities').description('capabilities.toml').command('migrate')
    .description('snap selections to what their models can run; clear those whose model left the registry')
    .option('--dry-run', 'show what would change', false)
    .addOption(json())
    .action(async (o) => (await registryCommands()).capabilitiesMigrate(paths(), o));
}
