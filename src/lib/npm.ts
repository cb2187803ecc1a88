// Running npm, for the three things that install packages with it: svc update (a version's
// dependencies), tool servers (mcp/npm-install.ts) and the bundled agents (agents/pi): which
// npm, which registry, and a command whose output goes to a log file.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

const NPM_TIMEOUT_MS = 20 * 60_000;

export const DEFAULT_REGISTRY = 'https://registry.npmjs.org/';

/** SVC_NPM_REGISTRY, else the registry npm was told to use (npm_config_registry), else npmjs.org. */
export function registryUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = (env.SVC_NPM_REGISTRY || env.npm_config_registry || DEFAULT_REGISTRY).trim();
  return url.endsWith('/') ? url : `${url}/`;
}

export interface Logged {
  code: number | null;
  /** The last lines of its output, for an error message. */
  tail: string;
  stdout: string;
}

/** Run a command, its output appended to the job's log; never throws for a non-zero exit. */
export function runLogged(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; logFile: string; timeoutMs?: number }): Promise<Logged> {
  return new Promise((done) => {
    const log = createWriteStream(options.logFile, { flags: 'a' });
    log.write(`$ ${command} ${args.join(' ')}\n`);
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let tail = '';
    const keep = (chunk: Buffer, isStdout: boolean) => {
      if (isStdout) stdout += chunk.toString();
      tail = (tail + chunk.toString()).slice(-2000);
      log.write(chunk);
    };
    child.stdout.on('data', (c: Buffer) => keep(c, true));
    child.stderr.on('data', (c: Buffer) => keep(c, false));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? NPM_TIMEOUT_MS);
    const finish = (code: number | null, error?: Error) => {
      clearTimeout(timer);
      if (error) tail += `\n${error.message}`;
      log.end(`[exit ${code}]\n`, () => done({ code, tail: tail.trim().split('\n').slice(-8).join('\n'), stdout }));
    };
    child.once('error', (error) => finish(null, error));
    child.once('close', (code) => finish(code));
  });
}

/** npm beside the node that runs svc (a service's PATH may not have it), else from PATH. */
export function npmCommand(): string {
  const beside = join(dirname(process.execPath), 'npm');
  return existsSync(beside) ? beside : 'npm';
}
