// The memory daemons' fixtures (test/fixtures/hindsight-daemon.mjs, mem0-server.mjs), each
// a real process on a loopback port: on a free one, or on a port the test chose before (the
// degraded test starts the gateway first and the daemon later on the port it was told).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { FIXTURES } from './fixture-engines.js';

export interface DaemonFixture {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startMemoryFixture(kind: 'hindsight' | 'mem0', options: { port?: number; key?: string } = {}): Promise<DaemonFixture> {
  const file = kind === 'hindsight' ? 'hindsight-daemon.mjs' : 'mem0-server.mjs';
  const args = [join(FIXTURES, file), '--port', String(options.port ?? 0), ...(options.key ? ['--key', options.key] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const port = await new Promise<number>((done, fail) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on port (\d+)/.exec(output);
      if (match) done(Number(match[1]));
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => fail(new Error(`the ${kind} fixture exited with ${code}:\n${output}`)));
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
