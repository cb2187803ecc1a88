// The command that starts an engine as a process, for the engines svc cannot find on its
// own (issue 5 §2): [engines].<provider> in svc.toml, else the SVC_<PROVIDER> environment
// variable, else (for engines with a well-known binary, e.g. `flm`) that name on PATH. The
// value is a command line, split like a shell would ("python3 /opt/x/server.py --quiet"):
// its first word is the program, the rest come before the flags the adapter adds.
// A source that is set but names no executable is an error of its own rather than a silent
// fall-through, so a typo never runs some other program (as for llama-server).
import { isAbsolute } from 'node:path';
import { ENGINE_COMMAND_KEYS } from '../config/schema/svc-toml.js';
import { ArgvSyntaxError, tokenize } from '../lib/shell-words.js';
import { SlotError } from '../protocol/errors.js';
import { isExecutableFile, searchPath } from './llama-server/binary.js';

export type CommandEngine = keyof typeof ENGINE_COMMAND_KEYS;

export interface EngineCommand {
  command: string;
  /** Words of the configured command line after the program. */
  args: string[];
  from: 'config' | 'env' | 'path';
}

/** How to give svc the command, for the slot.binary_missing message. */
export function engineCommandHelp(engine: CommandEngine): string {
  const { env, example } = ENGINE_COMMAND_KEYS[engine];
  return `Set [engines].${engine} in svc.toml to the command line that starts it (e.g. "${example}"; svc appends --host, --port and the other flags) ` +
    `or the ${env} environment variable, or set [engines].runtime = "podman" (or "docker") to run the slot profile's image.`;
}

async function resolveWords(engine: CommandEngine, source: string, line: string, env: NodeJS.ProcessEnv): Promise<Omit<EngineCommand, 'from'>> {
  let words: string[];
  try {
    words = tokenize(line);
  } catch (error) {
    if (!(error instanceof ArgvSyntaxError)) throw error;
    throw new SlotError('slot.config_error', `${source} cannot be split into words: ${error.message}`, { engine, source });
  }
  const [program, ...args] = words;
  if (program === undefined) throw new SlotError('slot.binary_missing', `${source} is blank. ${engineCommandHelp(engine)}`, { engine, source });
  const path = isAbsolute(program) ? ((await isExecutableFile(program)) ? program : undefined) : program.includes('/') ? undefined : await searchPath(program, env.PATH);
  if (!path) {
    throw new SlotError('slot.binary_missing', `${source} is "${line}", but "${program}" is not an executable file${isAbsolute(program) ? '' : ' on PATH'}. ${engineCommandHelp(engine)}`, { engine, source, program });
  }
  return { command: path, args };
}

/** Resolve the command line of a process-mode engine, or throw slot.binary_missing saying how to set it. */
export async function findEngineCommand(engine: CommandEngine, configured: string, env: NodeJS.ProcessEnv): Promise<EngineCommand> {
  if (configured.trim() !== '') return { ...(await resolveWords(engine, `[engines].${engine}`, configured, env)), from: 'config' };
  const { env: variable, onPath: pathName } = ENGINE_COMMAND_KEYS[engine];
  const fromEnv = env[variable];
  if (fromEnv !== undefined && fromEnv.trim() !== '') return { ...(await resolveWords(engine, variable, fromEnv, env)), from: 'env' };
  const onPath = pathName ? await searchPath(pathName, env.PATH) : undefined;
  if (onPath) return { command: onPath, args: [], from: 'path' };
  const tried = `[engines].${engine} and ${variable} are unset${pathName ? ` and ${pathName} is not on PATH` : ''}`;
  throw new SlotError('slot.binary_missing', `no command starts the ${engine} engine: ${tried}. ${engineCommandHelp(engine)}`, { engine });
}
