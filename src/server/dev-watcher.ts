// `svc serve --reload`: run the server as a child process and restart it whenever the
// built code (dist/) or the configuration changes. For development only.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, watch } from 'node:fs';
import { CODE_DIR } from '../lib/code-dir.js';
import { resolvePaths } from '../config/paths.js';

const DEBOUNCE_MS = 300;

export async function runWithReload(serveArgv: string[]): Promise<void> {
  const codeDir = CODE_DIR;
  const configRoot = resolvePaths().configRoot;
  mkdirSync(configRoot, { recursive: true });
  const watched = [codeDir, configRoot];
  let child: ChildProcess | undefined;
  let timer: NodeJS.Timeout | undefined;
  // Restarts run one after another: the next server starts only once the previous one has
  // exited and released the home's lock (a second one would exit 7, and the parent would
  // lose track of the first).
  let restarts = Promise.resolve();
  let stopping = false;

  const start = () => {
    // The module tree: what `tsc --watch` rewrites (the bundle is made by `npm run build` only).
    child = spawn(process.execPath, serveArgv, { stdio: 'inherit', env: { ...process.env, SVC_BUNDLE: '0' } });
  };
  const stopChild = () =>
    new Promise<void>((done) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
    });
  const restart = (reason: string) => {
    if (stopping) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      restarts = restarts.then(async () => {
        process.stdout.write(`svc: ${reason} changed, restarting\n`);
        await stopChild();
        start();
      });
    }, DEBOUNCE_MS);
  };

  for (const dir of watched) {
    try {
      watch(dir, { recursive: true }, (_event, file) => restart(file ? `${dir}/${file}` : dir));
    } catch {
      process.stdout.write(`svc: not watching ${dir} (it does not exist yet)\n`);
    }
  }
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      clearTimeout(timer);
      void restarts.then(stopChild).then(() => process.exit(0));
    });
  }
  start();
}
