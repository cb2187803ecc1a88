#!/usr/bin/env node
// The `svc` executable: the composition root that joins the CLI with the server it can
// start. Nothing else imports both.
import { runCli, type ServeCommandOptions } from '../cli/program.js';
import { readEnv } from '../config/env.js';
import { resolvePaths } from '../config/paths.js';
import { runWithReload } from '../server/reload.js';
import { serve, StartupError } from '../server/serve.js';

async function serveCommand(options: ServeCommandOptions): Promise<void> {
  if (options.reload) return runWithReload(process.argv.slice(1).filter((arg) => arg !== '--reload'));
  const port = options.port ?? readEnv(process.env).settings.port ?? 8080;
  // Signals are handled from the start: one that arrives while the server is still coming
  // up shuts it down as soon as it is up, instead of killing it mid-start.
  let server: Awaited<ReturnType<typeof serve>> | undefined;
  let stopRequested: string | undefined;
  const stop = (signal: string) => {
    stopRequested ??= signal;
    if (!server) return;
    process.stdout.write(`svc: ${signal} received, shutting down\n`);
    server.close().then(() => process.exit(0), (error: unknown) => {
      process.stderr.write(`svc: shutdown failed: ${String(error)}\n`);
      process.exit(1);
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  try {
    server = await serve({ host: options.host, port, paths: resolvePaths(), log: (line) => process.stdout.write(`${line}\n`) });
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    process.stderr.write(`svc: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  if (stopRequested) stop(stopRequested);
}

await runCli(process.argv, serveCommand);
