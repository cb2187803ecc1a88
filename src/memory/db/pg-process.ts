// The embedded memory database as a process of its own:
//   node dist/memory/db/pg-process.js --data <dir> [--port N] [--watch-stdin]
//   node dist/memory/db/pg-process.js --data <dir> --init
// PGlite (Postgres compiled to WebAssembly) with the real pgvector extension, its data
// directory at <dir>, served over the Postgres wire protocol by PGliteSocketServer on
// 127.0.0.1. It holds ~200 MB once open (pg-settings.ts), which is why it never runs
// inside the gateway. Prints one line `{"ready":true,"port":N,"pid":P}` on stdout once it
// accepts connections; SIGTERM or SIGINT close the server and then PGlite (a checkpoint, so
// nothing is torn); a SIGKILL leaves the WAL for the next open to replay.
// --init runs initdb in <dir> and exits: the supervisor runs it in a process of its own
// before the first start, because initdb's WebAssembly instance would otherwise stay in the
// server's memory (~140 MB more, for as long as it runs).
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { MEMORY_SETTINGS, sharedBuffersMb, storeBytes } from './pg-settings.js';
import { readyLine } from './ready-line.js';

interface Args {
  data: string;
  port: number;
  /** Started by the supervisor: stdin is its pipe, and its end means the gateway is gone. */
  watchStdin: boolean;
  /** Initialise the data directory (initdb) and exit. */
  init: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at === -1 ? undefined : argv[at + 1];
  };
  const data = value('--data');
  if (!data) throw new Error('usage: pg-process --data <dir> [--port N]');
  const port = Number(value('--port') ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: expected 0-65535, got ${value('--port')}`);
  return { data, port, watchStdin: argv.includes('--watch-stdin'), init: argv.includes('--init') };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  await mkdir(args.data, { recursive: true, mode: 0o700 });
  const settings = [...MEMORY_SETTINGS, `shared_buffers=${sharedBuffersMb(await storeBytes(args.data))}MB`];
  const db = await PGlite.create({ dataDir: args.data, extensions: { vector }, startParams: [...PGlite.defaultStartParams, ...settings.flatMap((setting) => ['-c', setting])] });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  if (args.init) {
    await db.close();
    process.stdout.write(`${JSON.stringify({ initialised: true, pid: process.pid })}\n`);
    process.exit(0);
  }
  // More than one connection is multiplexed query by query (a transaction keeps its
  // connection's turn); the gateway's pool uses one, and a reconnect must not wait behind it.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: args.port, maxConnections: 4 });
  await server.start();
  const port = Number(/:(\d+)$/.exec(server.getServerConn())?.[1] ?? args.port);
  process.stdout.write(readyLine(port, process.pid));

  let closing = false;
  const close = async (signal: string) => {
    if (closing) return;
    closing = true;
    process.stderr.write(`pg-process: ${signal}: closing\n`);
    await server.stop().catch((error: unknown) => process.stderr.write(`pg-process: stopping the socket server: ${String(error)}\n`));
    await db.close();
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void close(signal));
  if (args.watchStdin) {
    // The gateway went away without stopping us (its stdin pipe closed): close cleanly rather than linger.
    process.stdin.on('end', () => void close('stdin closed'));
    process.stdin.resume();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`pg-process: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
