// `svc serve --reload`: run the server as a child process and restart it whenever the
// built code (dist/) or the configuration changes. For development only.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, watch } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolvePaths } from '../config/paths.js';

const DEBOUNCE_MS = 300;

export async function runWithReload(serveArgv: string[]): Promise<void> {
  const codeDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const configRoot = resolvePaths().configRoot;
  mkdirSync(configRoot, { recursive: true });
  const watched = [codeDir, configRoot];
  let child: ChildProcess | undefined;
  let timer: NodeJS.Timeout | undefined;

  const start = () => {
    child = spawn(process.execPath, serveArgv, { stdio: 'inherit' });
  };
  const stopChild = () =>
    new Promise<void>((done) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
    });
  const restart = (reason: string) => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      process.stdout.write(`svc: ${reason} changed, restarting\n`);
      await stopChild();
      start();
    }, DEBOUNCE_MS);
  };

  for (const dir of watched) {
    try {
      watch(dir, { recursive: true }, (_event, file) => restart(file ? `${dir}/${file}` : dir));
    } catch {
      process.stdout.write(`svc: not watching ${dir} (it does not exist yet)\n`);
    }
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void stopChild().then(() => process.exit(0)));
  }
  start();
}
