// `svc doctor`: a preflight battery, one result per check (ok, warn, fail) with a hint on
// how to fix what is not ok. It reads the files itself, so it works with or without a
// running gateway; a port held by this home's gateway or one of its engines is not a conflict.
import { randomBytes } from 'node:crypto';
import { mkdir, rm, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { codeFile } from '../lib/code-dir.js';
import { liveHolder } from '../config/instance-lock.js';
import { loadConfig, type ResolvedConfig } from '../config/load.js';
import type { SvcPaths } from '../config/paths.js';
import { errorsOf, formatProblem, warningsOf } from '../config/problems.js';
import { findLlamaServer } from '../engines/llama-server/binary.js';
import { buildScriptPresent, doctorHint } from '../engines/llama-server/how-to-get.js';
import { probeHardware } from '../host/hardware.js';
import { estimateFit } from '../models/pull/fit.js';
import { storeOf } from '../config/model-store.js';
import { memoryOf } from '../protocol/hardware.js';
import { readSlotState } from '../config/slot-state-file.js';
import { ancestry, portOwner } from './port-owner.js';
import { clockCheck, proxyCheck, serviceCheck } from './host-checks.js';
import { run } from './run.js';
import type { CheckResult } from './types.js';
import { updateCheck } from './update-check.js';
import { own } from '../lib/own.js';

export type { CheckResult, CheckStatus } from './types.js';

export interface DoctorOptions {
  paths: SvcPaths;
  /** The API's port: the one this home's gateway serves on, else SVC_PORT (the environment, api.env), else 8080. */
  apiPort: number;
  /** More ports to check (--ports); a conflict on one of these is a warning. */
  extraPorts: readonly number[];
  env: NodeJS.ProcessEnv;
  /** The gateway running the battery itself (GET /api/doctor): it serves this home, and its ports are ours. */
  self?: { pid: number; url: string };
}

const GiB = 1024 ** 3;
/** Below this much free space in the model store, a warning: one mid-size model does not fit. */
export const DISK_WARN_GB = 20;

export async function runDoctor(options: DoctorOptions): Promise<CheckResult[]> {
  const { paths } = options;
  const results: CheckResult[] = [];
  const outcome = await loadConfig(paths, options.env);
  results.push(configCheck(outcome));
  const config = outcome.ok ? outcome.config : undefined;
  results.push(...(await writableChecks(paths, config)), gatewayCheck(paths, options.self));
  results.push(...(await portChecks(options, config)));
  results.push(...(await engineChecks(config, options.env)));
  const probe = await probeHardware().catch(() => null);
  if (config) results.push(...deviceChecks(config, probe), memoryCheck(config, probe));
  results.push(serviceCheck(), await proxyCheck(paths, config), await updateCheck(paths, options.env), await clockCheck());
  return results;
}

/** Whether a gateway serves this home now (its lock names a live process). */
function gatewayCheck(paths: SvcPaths, self: DoctorOptions['self']): CheckResult {
  // The lock names this very process, which liveHolder never counts as another holder.
  if (self) return { id: 'gateway', status: 'ok', message: `serving this home at ${self.url} (pid ${self.pid}, running this check)` };
  const holder = liveHolder(paths.stateRoot);
  if (!holder) return { id: 'gateway', status: 'warn', message: 'no gateway serves this home', hint: 'start it: svc serve (or npm start in a checkout, or the service)' };
  return { id: 'gateway', status: 'ok', message: `serving this home${holder.url ? ` at ${holder.url}` : ' (still starting)'} (pid ${holder.pid}, since ${holder.started_at})` };
}

function configCheck(outcome: Awaited<ReturnType<typeof loadConfig>>): CheckResult {
  const errors = errorsOf(outcome.problems);
  if (errors.length > 0) return { id: 'config', status: 'fail', message: `${errors.length} error(s): ${errors.map(formatProblem).join('; ')}`, hint: 'fix each field named (svc config edit <file>), then svc config validate' };
  const warnings = warningsOf(outcome.problems);
  const slots = outcome.ok ? outcome.config.slots.length : 0;
  if (warnings.length > 0) return { id: 'config', status: 'warn', message: `valid, ${slots} slot(s), with ${warnings.length} warning(s): ${warnings.map(formatProblem).join('; ')}`, hint: 'svc config validate lists them' };
  return { id: 'config', status: 'ok', message: `every file valid; ${slots} slot(s)` };
}

async function canWrite(dir: string): Promise<string | null> {
  try {
    await mkdir(dir, { recursive: true });
    const probe = join(dir, `.svc-doctor-${randomBytes(4).toString('hex')}`);
    await writeFile(probe, '');
    await rm(probe);
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  }
}

async function writableChecks(paths: SvcPaths, config: ResolvedConfig | undefined): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const [id, dir] of [['config-writable', paths.configRoot], ['state-writable', paths.stateRoot]] as const) {
    const failure = await canWrite(dir);
    results.push(failure ? { id, status: 'fail', message: `${dir} is not writable (${failure})`, hint: `run svc as the user that owns ${dir}, or svc doctor perms --fix as root` } : { id, status: 'ok', message: `${dir} writable` });
  }
  const store = config ? storeOf(config) : paths.defaultModelsDir;
  const fs = await statfs(store).catch(() => statfs(paths.stateRoot).catch(() => null));
  if (!fs) return [...results, { id: 'disk', status: 'warn', message: `cannot read the free space of ${store}` }];
  const freeGb = (fs.bavail * fs.bsize) / GiB;
  const message = `${freeGb.toFixed(1)} GB free for models in ${store}`;
  if (freeGb < 1) results.push({ id: 'disk', status: 'fail', message, hint: 'free space, or point [models].storage_dir at a larger disk' });
  else if (freeGb < DISK_WARN_GB) results.push({ id: 'disk', status: 'warn', message: `${message} (under ${DISK_WARN_GB} GB)`, hint: 'a mid-size model needs 5-20 GB; free space or move [models].storage_dir' });
  else results.push({ id: 'disk', status: 'ok', message });
  return results;
}

/** The API's port, every slot's, and --ports: free, or held by this home's gateway or engines. */
async function portChecks(options: DoctorOptions, config: ResolvedConfig | undefined): Promise<CheckResult[]> {
  const gateway = liveHolder(options.paths.stateRoot);
  const ours = new Map<number, string>();
  if (gateway) ours.set(gateway.pid, `this home's gateway (pid ${gateway.pid})`);
  if (options.self && !ours.has(options.self.pid)) ours.set(options.self.pid, `this gateway (pid ${options.self.pid})`);
  for (const slot of config?.slots ?? []) {
    const pid = readSlotState(options.paths.stateRoot, slot.name)?.pid;
    if (pid) ours.set(pid, `slot ${slot.name}'s engine (pid ${pid})`);
  }
  const wanted: Array<{ port: number; what: string; soft: boolean }> = [
    { port: options.apiPort, what: 'the API', soft: false },
    ...(config?.slots ?? []).map((s) => ({ port: s.config.slot.port, what: `slot ${s.name}`, soft: !s.config.slot.enabled })),
    ...options.extraPorts.map((port) => ({ port, what: '--ports', soft: true })),
  ];
  const results: CheckResult[] = [];
  for (const { port, what, soft } of wanted) {
    const owner = await portOwner(port);
    const id = `port:${port}`;
    if (!owner.listening) {
      results.push({ id, status: 'ok', message: `${port} (${what}) is free` });
      continue;
    }
    const chain = owner.pid ? await ancestry(owner.pid) : [];
    const svc = chain.map((pid) => ours.get(pid)).find(Boolean);
    if (svc) {
      results.push({ id, status: 'ok', message: `${port} (${what}) is held by ${svc}` });
      continue;
    }
    const who = owner.pid ? `pid ${owner.pid}${owner.command ? ` (${owner.command.slice(0, 80)})` : ''}` : 'a process of another user';
    results.push({ id, status: soft ? 'warn' : 'fail', message: `${port} (${what}) is held by ${who}`, hint: `stop it, or move ${what === 'the API' ? 'the API (svc serve --port, SVC_PORT)' : `${what} to another port (svc slot edit <name> --port)`}` });
  }
  return results;
}

/** llama-server found and its version; the built-in engine's binding loads, and which build it uses. */
async function engineChecks(config: ResolvedConfig | undefined, env: NodeJS.ProcessEnv): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const needsLlama = (config?.slots ?? []).some((s) => s.config.slot.enabled && s.config.slot.provider === 'llama-server');
  try {
    const found = await findLlamaServer(config?.svc.engines.llama_server ?? '', env);
    const version = await run(found.path, ['--version'], 5_000);
    const line = `${version.stdout}\n${version.stderr}`.split('\n').find((l) => /version/i.test(l))?.trim();
    results.push(version.code === 0 ? { id: 'llama-server', status: 'ok', message: `${found.path}: ${line ?? 'version unknown'}` } : { id: 'llama-server', status: 'fail', message: `${found.path} --version exited ${version.code}: ${version.stderr.trim().split('\n').at(-1) ?? ''}`, hint: doctorHint(await buildScriptPresent(), 'broken') });
  } catch (error) {
    results.push({ id: 'llama-server', status: needsLlama ? 'fail' : 'warn', message: `no llama-server: ${(error as Error).message}`, hint: needsLlama ? doctorHint(await buildScriptPresent(), 'missing') : 'only needed for slots with provider llama-server; the built-in engine works without it' });
  }
  const probe = await run(process.execPath, [codeFile('doctor/builtin-probe.js')], 60_000);
  try {
    const { gpu, devices } = JSON.parse(probe.stdout.trim().split('\n').at(-1) ?? '') as { gpu: string | false; devices: string[] };
    results.push({ id: 'builtin-engine', status: 'ok', message: `node-llama-cpp loads; GPU build: ${gpu === false ? 'none (CPU only)' : `${gpu}${devices.length ? ` (${devices.join(', ')})` : ''}`}` });
  } catch {
    results.push({ id: 'builtin-engine', status: 'fail', message: `node-llama-cpp does not load: ${probe.stderr.trim().split('\n').filter((l) => !l.startsWith('    at ')).slice(-2).join(' ') || `exit ${probe.code}`}`, hint: 'reinstall: npm install (its prebuilt binaries come with it)' });
  }
  return results;
}

/** Slots configured for a GPU kind this host does not have. */
function deviceChecks(config: ResolvedConfig, probe: Awaited<ReturnType<typeof probeHardware>> | null): CheckResult[] {
  const available = new Set<string>(['cpu', ...(probe?.gpus ?? []).flatMap((g) => g.devices), ...(probe?.npus ?? []).flatMap((n) => n.devices)]);
  const gpus = (probe?.gpus ?? []).map((g) => `${g.vendor_name}${g.driver ? ` (${g.driver})` : ''}`);
  const missing = config.slots.filter((s) => s.config.slot.enabled && !available.has(s.config.slot.device));
  const found = gpus.length ? gpus.join(', ') : 'no GPU';
  if (missing.length === 0) return [{ id: 'devices', status: 'ok', message: `${found}; every enabled slot's device is here` }];
  return [{ id: 'devices', status: 'warn', message: `${found}; ${missing.map((s) => `slot ${s.name} wants ${s.config.slot.device}`).join(', ')}`, hint: 'give those slots a device this host has (svc slot edit <name> --hardware cpu), or install the GPU driver; svc probe shows what was found' }];
}

/** The enabled slots' models (the pull fit check's estimate) against RAM and VRAM. */
function memoryCheck(config: ResolvedConfig, probe: Awaited<ReturnType<typeof probeHardware>> | null): CheckResult {
  const { ramMb: ram, vramMb: vram } = memoryOf(probe);
  let needed = 0;
  for (const slot of config.slots.filter((s) => s.config.slot.enabled)) {
    const size = own(config.registry.models, slot.config.model.default)?.size_bytes;
    if (size) needed += estimateFit({ weightsBytes: size, shape: null, context: slot.config.model.context_size ?? undefined, ramAvailableMb: ram, vramMb: vram }).total_mb;
  }
  const message = `enabled slots need about ${needed} MB; the host has ${ram} MB RAM + ${vram} MB VRAM`;
  return needed > ram + vram ? { id: 'memory', status: 'warn', message, hint: 'they cannot all run at once: eviction will stop idle ones; disable some or pick smaller quants' } : { id: 'memory', status: 'ok', message };
}
