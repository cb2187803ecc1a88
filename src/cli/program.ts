// The `svc` command tree. Each action is a few lines over the typed client (or the config
// layer, for commands that must work without a server). `serve` is injected by the bin, so
// the CLI never imports server code.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { resolveApiUrl } from '../config/api-url.js';
import { readEnv } from '../config/env.js';
import { resolvePaths } from '../config/paths.js';
import { formatProblem, suggest } from '../config/problems.js';
import { VERSION } from '../lib/version.js';
import { TOKEN_SCOPES } from '../protocol/vocabulary.js';
import { ApiClient } from './client.js';
import { cliCredentials } from './credentials.js';
import { registerSlotCommands } from './commands/slot.js';
import { registerMcpCommands } from './commands/mcp.js';
import { registerMemoryCommands } from './commands/memory.js';
import { registerPeerCommands } from './commands/peer.js';
import { registerAgentCommands } from './commands/agent.js';
import { CliExit, EXIT, exitFor } from './output.js';

export interface ServeCommandOptions {
  host?: string;
  port?: number;
  reload: boolean;
}

export type ServeAction = (options: ServeCommandOptions) => Promise<void>;

// Each command's implementation is loaded when it runs: `svc serve` and `svc --help` load
// none of them (start-up, docs/performance.md), and one command loads only its own.
const configCommands = () => import('./commands/config.js');
const modelCommands = () => import('./commands/model.js');
const pullCommands = () => import('./commands/model-pull.js');

/** --token and --verbose, kept by the program's preAction hook for client(). */
let tokenOption: string | undefined;
let verboseOption = false;
let saidWhere = false;

/**
 * The API client: SVC_API_URL, else the gateway serving this home, else 127.0.0.1 on SVC_PORT
 * or 8080 (config/api-url.ts). A malformed SVC_API_URL or SVC_PORT is an error, never a silent
 * fallback to another server. With --verbose, which URL and why goes to stderr (once).
 */
const client = () => {
  const env = readEnv(process.env);
  const bad = env.problems.find((p) => p.path === 'SVC_API_URL' || (p.path === 'SVC_PORT' && env.settings.apiUrl === undefined));
  if (bad) throw new CliExit(EXIT.configInvalid, formatProblem(bad));
  const paths = resolvePaths();
  const target = resolveApiUrl(env.settings, paths);
  if (verboseOption && !saidWhere) {
    saidWhere = true;
    process.stderr.write(`svc: using the API at ${target.url}: ${target.why}\n`);
  }
  return new ApiClient(target.url, cliCredentials(target.url, paths, tokenOption ?? (process.env.SVC_API_TOKEN?.trim() || undefined)));
};
/** A whole number >= 1 for an option. */
function positiveInt(value: string, option: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`${option}: expected a whole number >= 1; got "${value}"`);
  return Number(value);
}
const paths = () => resolvePaths();
const json = () => new Option('--json', 'print JSON');

function portNumber(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError(`expected a port number 0-65535; got "${value}"`);
  return port;
}

export function buildProgram(serve: ServeAction): Command {
  const program = new Command('svc')
    .description('svc: a local inference gateway. Docs: docs/cli.md')
    .version(VERSION, '-V, --version', 'print the version')
    .showHelpAfterError('(run with --help for usage)')
    .option('--token <token>', 'API token for auth mode (default: $SVC_API_TOKEN)')
    .option('--verbose', 'say on stderr which API URL is used and why (SVC_API_URL, the gateway serving this home, SVC_PORT)')
    .hook('preAction', (command) => {
      ({ token: tokenOption, verbose: verboseOption = false } = command.opts<{ token?: string; verbose?: boolean }>());
    })
    .exitOverride();

  program.command('serve')
    .description('start the API server')
    .option('--host <address>', 'address to bind (default: $SVC_HOST or 127.0.0.1)')
    .option('--port <port>', 'port to listen on (default: $SVC_PORT or 8080)', portNumber)
    .option('--reload', 'restart the server when its code or configuration changes (development)', false)
    .action((options: ServeCommandOptions) => serve(options));

  program.command('status')
    .description('system and slot summary')
    .addOption(json())
    .action(async (options) => (await import('./commands/status.js')).statusCommand(client(), options));

  program.command('probe')
    .description('re-run hardware detection (CPU, RAM, GPUs, NPU, tools) and cache it in hardware.json')
    .addOption(json())
    .action(async (options) => (await import('./commands/probe.js')).probeCommand(client(), options));

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

  program.command('setup').description('first-run provisioning: hardware, model storage, chat/embedding/reranking slots, auth mode (interactive without --auto)')
    .option('--auto', 'no questions: the defaults', false).option('--storage-dir <dir>', 'where models go (default <state>/models)')
    .option('--no-pull', 'download nothing: demo models (with --auto), slots whose models are missing are skipped')
    .option('--no-extensions', 'skip the extensions step').option('--no-slots', 'create no slots')
    .option('--answers <file>', 'replay answers (JSON, as --emit-answers writes them)').option('--emit-answers <file>', 'write the answers used')
    .option('--dry-run', 'print what would be done; write nothing', false).addOption(json())
    .action(async (o) => (await import('./commands/setup.js')).setupCommand(paths(), client, o));

  program.command('uninstall').description('stop svc and remove its service units and installed versions; keeps config and state unless --purge')
    .option('--purge', 'also remove config and state (asks for the hostname or DELETE)', false).option('--clean-slate', 'the same as --purge', false)
    .option('--keep-data', 'with --purge: keep the models and the activity log', false).option('-f, --force', 'do not ask', false)
    .option('--dev', "work on this checkout's .svc-home", false).addOption(json())
    .action(async (o) => (await import('./commands/uninstall.js')).uninstallCommand(paths(), o));

  program.command('update').description('update svc to the newest version of its channel, or --target VER; --check only checks; --rollback switches back')
    .option('--check', 'only check', false).option('--channel <channel>', 'switch the channel (stable or nightly) and keep it')
    .option('--target <version>', 'a version to go to').option('--allow-downgrade', 'let --target name a version older than the running one', false)
    .option('--rollback', 'switch back to the previous version', false).addOption(json())
    .action(async (o) => (await import('./commands/update.js')).updateCommand(client(), o));

  const doctorCommands = () => import('./commands/doctor.js');
  // One command with an optional sub-check, not subcommands: commander would take --ports' value for a subcommand name.
  program.command('doctor [check]').description('preflight checks: config, disk, ports, engines, GPUs, memory, service, proxy, clock (exit 1 when one fails); check: toolbox-pull (image digests) or perms (owners and modes)')
    .option('--plain', 'no colour or symbols', false).option('--ports <ports>', 'more ports to check, e.g. "8080 3001"')
    .option('--manifest <path>', 'toolbox-pull: another manifest.json').option('--fix', 'perms: chown and chmod what drifted (root)', false).addOption(json())
    .action(async (check: string | undefined, o) => (await doctorCommands()).doctorDispatch(paths(), check, o));

  const stackCommands = () => import('./commands/stack.js');
  const stack = program.command('stack').description('stacks: named sets of slot assignments (the 3 built-ins and stacks.toml)');
  stack.command('list').description('list stacks').addOption(json()).action(async (o) => (await stackCommands()).stackList(client(), o));
  stack.command('show <slug>').description('show one stack').addOption(json()).action(async (slug: string, o) => (await stackCommands()).stackShow(client(), slug, o));
  stack.command('export <slug>').description('write the portable envelope').option('-o, --out <file>', 'where (default <slug>.svcstack.json; - for stdout)')
    .action(async (slug: string, o) => (await stackCommands()).stackExport(client(), slug, o));
  stack.command('import <file>').description('add a stack from an envelope (its checksum is checked)').option('--slug <slug>', 'import under another slug').addOption(json())
    .action(async (file: string, o) => (await stackCommands()).stackImport(client(), file, o));
  stack.command('snapshot <slug>').description('save the live slots as a new stack').option('--name <name>', 'display name').addOption(json())
    .action(async (slug: string, o) => (await stackCommands()).stackSnapshot(client(), slug, o));
  stack.command('apply <slug>').description('make the slots match the stack: create, edit, load and swap the slots it names, unload the others')
    .option('--dry-run', 'print the plan; change nothing', false).option('--pull', 'pull the models that are not here yet before their slots start', false).addOption(json())
    .action(async (slug: string, o) => (await stackCommands()).stackApply(client(), slug, o));
  stack.command('active').description('the stack applied last, and whether the slots drifted from it').addOption(json())
    .action(async (o) => (await stackCommands()).stackActive(client(), o));
  stack.command('delete <slug>').description('delete a stack').addOption(json()).action(async (slug: string, o) => (await stackCommands()).stackDelete(client(), slug, o));

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

  registerSlotCommands(program, client);
  registerMcpCommands(program, client);
  registerMemoryCommands(program, client);
  registerPeerCommands(program, client);
  registerAgentCommands(program, client);

  program.command('run <model> [prompt...]')
    .description('chat with a slot, a model or an id the gateway serves (a name nothing knows is pulled): load it, then an interactive chat (or answer [prompt], or piped stdin, and exit)')
    .action(async (ref: string, words: string[]) => (await import('./commands/run.js')).runCommand(client(), ref, words.length > 0 ? words.join(' ') : undefined));

  const authCommands = () => import('./commands/auth.js');
  const auth = program.command('auth').description('auth mode: Caddy in front with TLS and basic auth, bearer tokens for the API');
  auth.command('enable').description('render the Caddyfile, turn auth mode on, start the proxy')
    .option('--user <name>', 'admin user for basic auth (default: $SVC_ADMIN_USER or admin)')
    .option('--hostname <name>', 'the name clients use (default: $SVC_HOSTNAME or svc.local)')
    .option('--email <address>', 'ACME contact (default: $SVC_TLS_EMAIL or admin@<hostname>)')
    .option('--api <host:port>', "where the proxy finds the API (default: 127.0.0.1 on the port of the gateway serving this home, else $SVC_PORT or 8080)")
    .option('--chat <host:port>', 'the chat front end (default: 127.0.0.1:3001)')
    .option('--http-port <port>', 'the proxy\'s HTTP port (default 80)', portNumber)
    .option('--https-port <port>', 'the proxy\'s HTTPS port (default 443)', portNumber)
    .option('--no-start', 'write the files only; do not start the proxy')
    .action(async (o) => (await authCommands()).authEnable(client(), paths(), o));
  auth.command('disable').description('turn auth mode off and stop the proxy, keeping its files and TLS state').action(async () => (await authCommands()).authDisable(client(), paths()));
  auth.command('status').description('auth mode, hostname, root certificate, proxy, tokens').addOption(json()).action(async (o) => (await authCommands()).authStatus(client(), paths(), o));

  const tokenCommands = () => import('./commands/token.js');
  const token = program.command('token').description('API tokens for auth mode: create, list, revoke');
  token.command('create').description('create a token and print it once')
    .requiredOption('--label <label>', 'a unique name: the identity shown for its requests')
    .addOption(new Option('--scope <scope>', 'what it may do').choices([...TOKEN_SCOPES]).makeOptionMandatory())
    .addOption(json())
    .action(async (o) => (await tokenCommands()).tokenCreate(client(), o));
  token.command('list').description('list tokens (never the tokens themselves)').addOption(json()).action(async (o) => (await tokenCommands()).tokenList(client(), o));
  token.command('revoke <id>').description('revoke a token; it is refused from the next request').addOption(json()).action(async (id: string, o) => (await tokenCommands()).tokenRevoke(client(), id, o));

  return program;
}

/**
 * The first command word in argv that names no command, with the command it was given to.
 * Commander answers `svc setup --help` with the top-level help and exit 0, as if the word
 * were not there; a command that does not exist must say so (exit 2), help or not. Only
 * commands with subcommands are checked, and they take no options with values, so every
 * word that is not an option is a command name.
 */
export function unknownCommand(program: Command, args: readonly string[]): { word: string; parent: Command } | undefined {
  let command = program;
  let skipValue = false;
  for (const word of args) {
    if (word === '--') return undefined;
    if (word === '--token') {
      skipValue = true; // the one global option that takes a value
      continue;
    }
    if (skipValue) {
      skipValue = false;
      continue;
    }
    if (word.startsWith('-')) {
      // An option of this command that takes a value: the word after it is that value (svc memory migrate --from hindsight).
      const option = word.includes('=') ? undefined : command.options.find((o) => o.long === word || o.short === word);
      skipValue = Boolean(option && (option.required || option.optional));
      continue;
    }
    if (command.commands.length === 0) return undefined;
    if (word === 'help') continue; // commander's own `svc help [command]`: the word after it is checked
    const next = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) return { word, parent: command };
    command = next;
  }
  return undefined;
}

function unknownCommandMessage({ word, parent }: { word: string; parent: Command }): string {
  const path = parent.parent ? `svc ${parent.name()}` : 'svc';
  const known = parent.commands.map((c) => c.name());
  const hint = suggest(word, known);
  return `unknown command '${word}'${hint ? ` (did you mean ${hint}?)` : ''}; \`${path} --help\` lists the commands: ${known.join(', ')}`;
}

/** Run the CLI and exit with the documented code. */
export async function runCli(argv: string[], serve: ServeAction): Promise<void> {
  const program = buildProgram(serve);
  const unknown = unknownCommand(program, argv.slice(2));
  if (unknown) {
    process.stderr.write(`svc: ${unknownCommandMessage(unknown)}\n`);
    process.exitCode = EXIT.usage;
    return;
  }
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are "errors" to commander; they have already printed.
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    const exit = exitFor(error);
    if (exit.message) process.stderr.write(`svc: ${exit.message}\n`);
    process.exitCode = exit.exitCode;
  }
}
