#!/usr/bin/env node
// The built-in engine process: `node dist/engines/builtin/main.js -m model.gguf --port N ...`.
// It listens at once and answers 503 "Loading model" until the model is loaded (like
// llama-server), so the supervisor sees it come up, then load, then be ready. Bad flags
// and a model that cannot load end the process with a message on stderr, which the
// supervisor puts in the slot's error.
import { once } from 'node:events';
import { loadEngine, type LoadedEngine } from './engine.js';
import { FlagError, parseFlags, USAGE, type BuiltinFlags } from './flags.js';
import { RequestLog } from './request-log.js';
import { createEngineServer } from './server.js';

const say = (line: string) => process.stdout.write(`${line}\n`);
const fail = (line: string, code: number): never => {
  process.stderr.write(`svc-builtin: error: ${line}\n`);
  process.exit(code);
};

function flagsOrExit(): BuiltinFlags {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    say(USAGE);
    process.exit(0);
  }
  try {
    return parseFlags(argv);
  } catch (error) {
    if (error instanceof FlagError) return fail(error.message, 2);
    throw error;
  }
}

async function main(): Promise<void> {
  const flags = flagsOrExit();
  let engine: LoadedEngine | null = null;
  const server = createEngineServer({ engine: () => engine, log: new RequestLog(say) });
  server.listen(flags.port, flags.host);
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => fail(`cannot listen on ${flags.host}:${flags.port}: ${(error as Error).message}`, 1))]);
  say(`svc-builtin: listening on http://${flags.host}:${flags.port}, loading ${flags.model}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`svc-builtin: ${signal}: stopping`);
    server.close();
    server.closeAllConnections();
    await engine?.dispose().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  const started = performance.now();
  try {
    engine = await loadEngine(flags);
  } catch (error) {
    fail(`cannot load ${flags.model}: ${(error as Error).message}`, 1);
  }
  const e = engine!;
  const { backendMs, modelMs, contextMs, templateMs } = e.timings;
  say(`svc-builtin: model ${e.modelName} loaded in ${(performance.now() - started).toFixed(0)} ms ` +
    `(node-llama-cpp ${backendMs.toFixed(0)} ms, model ${modelMs.toFixed(0)} ms, contexts ${contextMs.toFixed(0)} ms, chat template ${templateMs.toFixed(0)} ms): ${e.mode}, backend ${e.backend}, ` +
    `gpu layers ${e.model.gpuLayers}, threads ${flags.threads}, context ${e.contextSize} x ${e.parallel} parallel`);
}

main().catch((error: unknown) => fail((error as Error).stack ?? String(error), 1));
