// The `svc` commands that run the host's installation: setup, uninstall, update, doctor,
// stack, auth and token. Registration only: each action loads its command's module when it
// runs (start-up, docs/performance.md).
import { type Command, Option } from 'commander';
import { TOKEN_SCOPES } from '../protocol/vocabulary.js';
import type { CliHost } from './cli-host.js';
import type { ApiClient } from './client.js';
import { json, paths, portNumber } from './options.js';

/** `svc setup`, `svc uninstall`, `svc update`, `svc doctor`. */
export function registerOperationCommands(program: Command, client: () => ApiClient, host: Pick<CliHost, 'runDoctor' | 'setupHost'>): void {
  program.command('setup').description('first-run provisioning: hardware, model storage, chat/embedding/reranking slots, auth mode (interactive without --auto)')
    .option('--auto', 'no questions: the defaults', false).option('--storage-dir <dir>', 'where models go (default <state>/models)')
    .option('--no-pull', 'download nothing: demo models (with --auto), slots whose models are missing are skipped')
    .option('--no-extensions', 'skip the extensions step').option('--no-slots', 'create no slots')
    .option('--answers <file>', 'replay answers (JSON, as --emit-answers writes them)').option('--emit-answers <file>', 'write the answers used')
    .option('--dry-run', 'print what would be done; write nothing', false).addOption(json())
    .action(async (o) => (await import('./commands/setup.js')).setupCommand(paths(), client, host.setupHost, o));

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
    .action(async (check: string | undefined, o) => (await doctorCommands()).doctorDispatch(paths(), host.runDoctor, check, o));
}

/** `svc stack …`. */
export function registerStackCommands(program: Command, client: () => ApiClient): void {
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
}

/** `svc auth …` and `svc token …`. */
export function registerAuthCommands(program: Command, client: () => ApiClient): void {
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
}
