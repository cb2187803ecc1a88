// The phases that concern the host: the runtime (preflight, install, env_probe), the agent's
// home (home_init) and who owns what in it (ownership_reconcile, which runs every time, even
// after a fatal failure, so a half-made home is never left with a secret readable by others).
import { spawnSync } from 'node:child_process';
import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PhaseContext } from './phase-context.js';
import { DEFAULT_PIP_SPEC, isExecutable, packageIndexReachable, parseVersion, runProgram, venvOf } from './runtime.js';
import type { PhaseOutcome } from './types.js';

export const MANAGED_MARKER = '.svc-managed';
const tail = (text: string) => text.trim().split('\n').slice(-5).join('\n');
const installHint = (venv: string, spec: string) =>
  `install it yourself: python3 -m venv ${venv} && ${venv}/bin/pip install ${spec}; or set SVC_HERMES_RUNTIME to a hermes executable`;

function pythonVersion(): string | null {
  const result = spawnSync('python3', ['--version'], { encoding: 'utf8', timeout: 5_000 });
  return result.status === 0 ? parseVersion(`${result.stdout}${result.stderr}`) : null;
}

export async function preflight(ctx: PhaseContext): Promise<PhaseOutcome> {
  const runtime = ctx.runtime();
  if (runtime.source === 'SVC_HERMES_RUNTIME') {
    if (!(await isExecutable(runtime.path))) return { status: 'fail', fatal: true, reason: `SVC_HERMES_RUNTIME=${runtime.path} is not an absolute path to an executable` };
    return { status: 'ok', details: { runtime: runtime.path, source: runtime.source } };
  }
  const python = pythonVersion();
  const [major = 0, minor = 0] = (python ?? '0.0').split('.').map(Number);
  if (!(await isExecutable(runtime.path)) && (major < 3 || (major === 3 && minor < 11))) {
    return { status: 'fail', fatal: true, reason: `hermes needs Python 3.11 or newer with venv (found ${python ?? 'no python3'}): install python3 and python3-venv, or set SVC_HERMES_RUNTIME to a hermes executable`, details: { python } };
  }
  return { status: 'ok', details: { runtime: runtime.path, source: runtime.source, python } };
}

export async function install(ctx: PhaseContext): Promise<PhaseOutcome> {
  const runtime = ctx.runtime();
  const wanted = ctx.options.version;
  const probe = async () => {
    const run = await ctx.run(['--version']);
    return run.code === 0 ? parseVersion(run.stdout) : null;
  };
  if (runtime.source === 'SVC_HERMES_RUNTIME') {
    const version = await probe();
    if (!version) return { status: 'fail', fatal: true, reason: `${runtime.path} --version failed: the runtime cannot run` };
    if (wanted && version !== wanted) return { status: 'fail', fatal: true, reason: `the runtime is version ${version}, ${wanted} was asked for`, details: { version, wanted } };
    return { status: 'ok', details: { runtime: runtime.path, source: runtime.source, version } };
  }
  const venv = venvOf(ctx.deps.paths.installDir);
  const spec = `${ctx.deps.env.SVC_HERMES_PIP_SPEC ?? DEFAULT_PIP_SPEC}${wanted ? `==${wanted}` : ''}`;
  if ((await isExecutable(runtime.path)) && !ctx.options.repair) {
    const version = await probe();
    if (version && (!wanted || version === wanted)) return { status: 'skip', reason: 'installed', details: { venv, version } };
  }
  if (ctx.options.dryRun) return { status: 'ok', details: { venv, would_install: spec } };
  if (ctx.options.offline) return { status: 'fail', fatal: true, reason: `the hermes runtime is not installed and --offline keeps svc off Python's package index: ${installHint(venv, spec)}` };
  const index = await packageIndexReachable(ctx.deps.env);
  if (!index.ok) return { status: 'fail', fatal: true, reason: `Python's package index (${index.url}) is unreachable (${index.error}): ${installHint(venv, spec)}` };
  await mkdir(ctx.deps.paths.installDir, { recursive: true });
  for (const [program, args] of [['python3', ['-m', 'venv', venv]], [join(venv, 'bin', 'pip'), ['install', '--upgrade', spec]]] as const) {
    ctx.log(`run: ${program} ${args.join(' ')}`);
    const run = await runProgram(program, args, ctx.deps.env, 900_000);
    if (run.code !== 0) return { status: 'fail', fatal: true, reason: `${program} ${args.join(' ')} failed (exit ${run.code}): ${tail(run.stderr)}` };
  }
  const version = await probe();
  if (!version) return { status: 'fail', fatal: true, reason: `pip installed ${spec} but ${runtime.path} --version does not run` };
  return { status: 'ok', details: { venv, version, installed: spec } };
}

export async function envProbe(ctx: PhaseContext): Promise<PhaseOutcome> {
  const run = await ctx.run(['--version']);
  const version = run.code === 0 ? parseVersion(run.stdout) : null;
  if (!version) return { status: 'fail', fatal: true, reason: `hermes --version failed (exit ${run.code}): ${tail(run.stderr) || 'no version printed'}` };
  return { status: 'ok', details: { version, runtime: ctx.runtime().path, node: process.version } };
}

export async function homeInit(ctx: PhaseContext): Promise<PhaseOutcome> {
  const entries = await readdir(ctx.home).catch(() => null);
  const managed = entries?.includes(MANAGED_MARKER) ?? false;
  if (entries && entries.length > 0 && !managed && !ctx.options.adopt) {
    return { status: 'fail', fatal: true, reason: `${ctx.home} holds files svc did not put there: pass --adopt to take it over` };
  }
  const outcome = await ctx.writeSet([{ path: join(ctx.home, MANAGED_MARKER), content: 'managed by svc (agent hermes); svc agent uninstall hermes --purge removes this folder\n' }]);
  return entries && entries.length > 0 && !managed ? { ...outcome, details: { ...outcome.details, adopted: true } } : outcome;
}

/** Files that must not be readable by others (secrets), and the rule for everything else. */
const SECRET_FILES = new Set(['.env']);

export async function ownershipReconcile(ctx: PhaseContext): Promise<PhaseOutcome> {
  const drift: Array<{ path: string; problem: string; mode: number; want: number }> = [];
  const uid = process.getuid?.();
  const walk = async (dir: string, depth: number): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, entry.name);
      const info = await lstat(path);
      if (info.isSymbolicLink()) continue;
      const mode = info.mode & 0o777;
      if (uid !== undefined && info.uid !== uid) drift.push({ path, problem: `owned by uid ${info.uid}, svc runs as ${uid}`, mode, want: mode });
      const want = SECRET_FILES.has(entry.name) && depth === 0 ? 0o600 : mode & ~0o022;
      if (mode !== want) drift.push({ path, problem: `mode ${mode.toString(8)}, wants ${want.toString(8)}`, mode, want });
      if (info.isDirectory() && depth < 4) await walk(path, depth + 1);
    }
  };
  if (!(await readdir(ctx.home).catch(() => null))) return { status: 'skip', reason: `${ctx.home} does not exist yet` };
  await walk(ctx.home, 0);
  if (drift.length === 0) return { status: 'ok', details: { checked: ctx.home } };
  const listed = drift.map((d) => `${d.path}: ${d.problem}`);
  for (const line of listed) ctx.log(`drift: ${line}`);
  if (!ctx.options.repair || ctx.options.dryRun) return { status: 'repair_needed', reason: `${drift.length} path(s) drifted: run with --repair`, details: { drift: listed } };
  const unfixable = drift.filter((d) => d.mode === d.want);
  for (const d of drift.filter((x) => x.mode !== x.want)) await chmod(d.path, d.want);
  if (unfixable.length > 0) return { status: 'fail', reason: `${unfixable.length} path(s) owned by another user: chown them to the user svc runs as`, details: { drift: listed } };
  return { status: 'ok', details: { fixed: listed } };
}
