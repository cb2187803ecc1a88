// The hermes runtime: a Python program (`hermes`) in a venv svc makes, or a stand-in named by
// SVC_HERMES_RUNTIME (an absolute path to an executable answering the same commands; the
// tests use test/fixtures/hermes-runtime.mjs because the real one needs Python's package index).
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';

export interface RuntimeLocation {
  /** The executable. */
  path: string;
  source: 'SVC_HERMES_RUNTIME' | 'venv';
}

export interface RuntimeRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** What pip installs (SVC_HERMES_PIP_SPEC overrides, e.g. a git URL or a wheel). */
export const DEFAULT_PIP_SPEC = 'hermes-agent';
const RUN_TIMEOUT_MS = 120_000;

export const venvOf = (installDir: string) => join(installDir, 'venv');

export function runtimeLocation(installDir: string, env: NodeJS.ProcessEnv): RuntimeLocation {
  const override = env.SVC_HERMES_RUNTIME;
  if (override) return { path: override, source: 'SVC_HERMES_RUNTIME' };
  return { path: join(venvOf(installDir), 'bin', 'hermes'), source: 'venv' };
}

export async function isExecutable(path: string): Promise<boolean> {
  if (!isAbsolute(path)) return false;
  return access(path, constants.X_OK).then(() => true, () => false);
}

/** Runs a program to its end (never throws): code -1 when it could not be started or timed out. */
export function runProgram(path: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = RUN_TIMEOUT_MS): Promise<RuntimeRun> {
  return new Promise((resolve) => {
    execFile(path, [...args], { env, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (!error) return resolve({ code: 0, stdout, stderr });
      const code = typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : -1;
      resolve({ code, stdout: stdout ?? '', stderr: `${stderr ?? ''}${code === -1 ? error.message : ''}` });
    });
  });
}

/** The runtime's environment: the gateway's, with the agent's home, so its files land there. */
export function runtimeEnv(env: NodeJS.ProcessEnv, hermesHome: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...env, HERMES_HOME: hermesHome, ...extra };
}

/** `hermes --version` prints e.g. "hermes 0.4.2" or "Hermes Agent v0.4.2": the first version-looking word. */
export function parseVersion(text: string): string | null {
  return /v?(\d+\.\d+(?:\.\d+)?(?:[-+.][\w.]+)?)/.exec(text)?.[1] ?? null;
}

/** Whether Python's package index answers (PIP_INDEX_URL or pypi.org), within 5 s. */
export async function packageIndexReachable(env: NodeJS.ProcessEnv): Promise<{ ok: boolean; url: string; error?: string }> {
  const url = env.PIP_INDEX_URL ?? 'https://pypi.org/simple/';
  try {
    const response = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(5_000) });
    return response.status < 500 ? { ok: true, url } : { ok: false, url, error: `HTTP ${response.status}` };
  } catch (error) {
    return { ok: false, url, error: error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error) };
  }
}
