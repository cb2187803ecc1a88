// The composition root that joins the CLI with the server it can start, and with the host
// code two commands run (`svc doctor`'s battery, `svc setup`'s hardware probe): nothing else
// imports both. The `svc` executable (bin/svc.ts) loads it, bundled into one file.
import { runCli, type ServeCommandOptions } from '../cli/program.js';
import { readEnv } from '../config/env.js';
import { readEnvFile } from '../config/env-file.js';
import { acquireInstanceLock, homeInUseMessage, homeOf, type InstanceLock } from '../config/instance-lock.js';
import { notWritableHint, resolvePaths, type SvcPaths } from '../config/paths.js';
import { EXIT_HOME_IN_USE, EXIT_NOT_WRITABLE } from '../server/exit-codes.js';

/** SIGHUP too: a closed terminal must stop the engines, not orphan them. */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

async function serveCommand(options: ServeCommandOptions, hooks: MainHooks): Promise<void> {
  // The watching parent takes no lock: each server it starts does, after the previous one exited.
  if (options.reload) return (await import('../server/dev-watcher.js')).runWithReload(process.argv.slice(1).filter((arg) => arg !== '--reload'));
  // The server's modules load only for `svc serve`: every other command stays light.
  const { serve, StartupError } = await import('../server/serve.js');
  const paths = resolvePaths();
  // api.env gives defaults beneath the environment (docs/configuration.md): SVC_PORT, and
  // SVC_HOST, which `svc auth enable` sets to 127.0.0.1 so that only the proxy faces the network.
  const env = readEnv({ ...(await readEnvFile(paths.apiEnv).catch(() => ({}))), ...process.env }).settings;
  const port = options.port ?? env.port ?? 8080;
  const host = options.host ?? env.host ?? '127.0.0.1';
  // Before anything reads state.json: a second gateway must not adopt or stop the first one's engines.
  const lock = takeHomeLock(paths);
  process.on('exit', () => lock.release());
  // Signals are handled from the start: one that arrives while the server is still coming
  // up shuts it down as soon as it is up, instead of killing it mid-start. Repeats are
  // ignored (Ctrl-C under `npm start` arrives twice: from the terminal and forwarded).
  let server: Awaited<ReturnType<typeof serve>> | undefined;
  let stopRequested: string | undefined;
  let stopping = false;
  const stop = (signal: string) => {
    stopRequested ??= signal;
    if (!server || stopping) return;
    stopping = true;
    process.stdout.write(`svc: ${stopRequested} received, shutting down\n`);
    server.close().then(() => process.exit(0), (error: unknown) => {
      process.stderr.write(`svc: shutdown failed: ${String(error)}\n`);
      process.exit(1);
    });
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => stop(signal));
  try {
    server = await serve({ host, port, paths, log: (line) => process.stdout.write(`${line}\n`) });
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    process.stderr.write(`svc: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  await lock.listening(server.url);
  if (stopRequested) stop(stopRequested);
  else hooks.onServing?.();
}

/** The home's lock, or exit: 7 with one line naming the gateway that serves it, 5 when the state root cannot be written. */
function takeHomeLock(paths: SvcPaths): InstanceLock {
  let outcome: ReturnType<typeof acquireInstanceLock>;
  try {
    outcome = acquireInstanceLock(paths);
  } catch (error) {
    const writeFailed = typeof (error as NodeJS.ErrnoException).code === 'string';
    process.stderr.write(`svc: ${writeFailed ? notWritableHint(paths, paths.stateRoot) : (error as Error).message}\n`);
    process.exit(writeFailed ? EXIT_NOT_WRITABLE : 1);
  }
  if ('heldBy' in outcome) {
    process.stderr.write(`svc: ${homeInUseMessage(outcome.heldBy, homeOf(paths))}\n`);
    process.exit(EXIT_HOME_IN_USE);
  }
  return outcome.acquired;
}

export interface MainHooks {
  /** Called once `svc serve` is listening: the launcher writes its code cache some time after. */
  readonly onServing?: () => void;
}

/** Run the command line in process.argv. */
export async function main(hooks: MainHooks = {}): Promise<void> {
  // `svc token list | head -1`: a reader that stops early is not an error. A command ends
  // quietly; the server (whose log a closed pipe no longer takes) keeps serving.
  let serving = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    if (!serving) process.exit(0);
  });
  await runCli(process.argv, {
    serve: (options) => {
      serving = true;
      return serveCommand(options, hooks);
    },
    // The battery probes the host (hardware, engine binaries, the model store): loaded only for `svc doctor`.
    runDoctor: async (options) => (await import('../doctor/checks.js')).runDoctor(options),
    setupHost: () => import('../setup/host.js'),
  });
}
