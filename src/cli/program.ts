// The `svc` command tree. Each action is a few lines over the typed client (or the config
// layer, for commands that must work without a server). `serve` and `svc doctor`'s battery
// are injected by the bin (cli-host.ts), so the CLI never imports server, engine or host code.
import { Command, CommanderError } from 'commander';
import { resolveApiUrl } from '../config/api-url.js';
import { readEnv } from '../config/env.js';
import { resolvePaths } from '../config/paths.js';
import { formatProblem, suggest } from '../config/problems.js';
import { VERSION } from '../lib/version.js';
import { ApiClient } from './client.js';
import { cliCredentials } from './credentials.js';
import { registerSlotCommands } from './commands/slot.js';
import { registerMcpCommands } from './commands/mcp.js';
import { registerMemoryCommands } from './commands/memory.js';
import { registerPeerCommands } from './commands/peer.js';
import { registerAgentCommands } from './commands/agent.js';
import { CliExit, EXIT, exitFor } from './output.js';
import { json, portNumber } from './options.js';
import { registerConfigCommands, registerProfileCommands, registerRegistryCommands } from './tree-models.js';
import type { CliHost, ServeCommandOptions } from './cli-host.js';
import { registerAuthCommands, registerOperationCommands, registerStackCommands } from './tree-operations.js';

export type { CliHost, ServeAction, ServeCommandOptions } from './cli-host.js';

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
export function buildProgram(host: CliHost): Command {
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
    .action((options: ServeCommandOptions) => host.serve(options));

  program.command('status')
    .description('system and slot summary')
    .addOption(json())
    .action(async (options) => (await import('./commands/status.js')).statusCommand(client(), options));

  program.command('probe')
    .description('re-run hardware detection (CPU, RAM, GPUs, NPU, tools) and cache it in hardware.json')
    .addOption(json())
    .action(async (options) => (await import('./commands/probe.js')).probeCommand(client(), options));

  registerConfigCommands(program, client);
  registerProfileCommands(program, client);
  registerOperationCommands(program, client, host);
  registerStackCommands(program, client);
  registerRegistryCommands(program);

  registerSlotCommands(program, client);
  registerMcpCommands(program, client);
  registerMemoryCommands(program, client);
  registerPeerCommands(program, client);
  registerAgentCommands(program, client);

  program.command('run <model> [prompt...]')
    .description('chat with a slot, a model or an id the gateway serves (a name nothing knows is pulled): load it, then an interactive chat (or answer [prompt], or piped stdin, and exit)')
    .action(async (ref: string, words: string[]) => (await import('./commands/run.js')).runCommand(client(), ref, words.length > 0 ? words.join(' ') : undefined));

  registerAuthCommands(program, client);

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
export async function runCli(argv: string[], host: CliHost): Promise<void> {
  const program = buildProgram(host);
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
