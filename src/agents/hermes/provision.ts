// The hermes phase machine (docs/agents.md, "hermes"): the 16 phases in order, each a small function
// returning ok/skip/fail/repair_needed. A fatal failure skips the later phases except
// ownership_reconcile (always runs). provision.json is written atomically at the end, and
// each phase's lines go to provision-logs/<phase>.log; a dry run writes nothing at all.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/atomic.js';
import { SvcError } from '../../protocol/errors.js';
import { PhaseContext } from './phase-context.js';
import { configWrite, contextLink, gatewaySecretsWire, installArtifacts, mcpWire, personaSeed } from './phases-files.js';
import { AGENT_ID, modelAutomap, namespaceRegister, selfReport, smokeTests, voiceWire } from './phases-gateway.js';
import { envProbe, homeInit, install, ownershipReconcile, preflight } from './phases-host.js';
import { venvOf } from './runtime.js';
import {
  HERMES_PHASES, type HermesPhase, type PhaseOutcome, type PhaseRecord, type ProvisionDeps, type ProvisionOptions, type ProvisionRecord, type ProvisionResult,
} from './types.js';

const PHASES: Record<HermesPhase, (ctx: PhaseContext) => Promise<PhaseOutcome>> = {
  preflight, install, env_probe: envProbe, home_init: homeInit, install_artifacts: installArtifacts, persona_seed: personaSeed,
  config_write: configWrite, mcp_wire: mcpWire, context_link: contextLink, namespace_register: namespaceRegister,
  model_automap: modelAutomap, voice_wire: voiceWire, ownership_reconcile: ownershipReconcile,
  gateway_secrets_wire: gatewaySecretsWire, smoke_tests: smokeTests, self_report: selfReport,
};
/** Runs even after a fatal failure: a half-made home must not keep a secret others can read. */
const ALWAYS_RUN: ReadonlySet<HermesPhase> = new Set(['ownership_reconcile']);

export const provisionPath = (stateDir: string) => join(stateDir, 'provision.json');
export const phaseLogPath = (stateDir: string, phase: HermesPhase) => join(stateDir, 'provision-logs', `${phase}.log`);

export function isPhase(name: string): name is HermesPhase {
  return (HERMES_PHASES as readonly string[]).includes(name);
}

/** --skip-phase names must be phases: a typo would otherwise run the phase it meant to skip. */
export function checkSkipPhases(names: readonly string[]): void {
  const unknown = names.filter((n) => !isPhase(n));
  if (unknown.length > 0) {
    throw new SvcError('request.invalid', `unknown phase ${unknown.join(', ')}; the phases are ${HERMES_PHASES.join(', ')}`, { problems: unknown.map((n) => ({ path: 'skip_phases', message: `unknown phase "${n}"` })) });
  }
}

export async function readProvision(stateDir: string): Promise<ProvisionRecord | null> {
  try {
    const record = JSON.parse(await readFile(provisionPath(stateDir), 'utf8')) as ProvisionRecord;
    return record.schema_version === 1 ? record : null;
  } catch {
    return null;
  }
}

export async function provisionHermes(deps: ProvisionDeps, options: ProvisionOptions): Promise<ProvisionResult> {
  checkSkipPhases(options.skipPhases ?? []);
  const { stateDir, dataDir, installDir } = deps.paths;
  const previous = await readProvision(stateDir);
  const record: ProvisionRecord = {
    schema_version: 1, started_at: new Date().toISOString(), completed_at: '', svc_version: deps.wiring.svcVersion,
    hermes_version: null, hermes_home: dataDir, venv: venvOf(installDir),
    agent_id: AGENT_ID, phases: {}, errors: [],
  };
  const logs = new Map<HermesPhase, string[]>();
  const done: Partial<Record<HermesPhase, PhaseRecord>> = {};
  let aborted: HermesPhase | null = null;
  for (const name of HERMES_PHASES) {
    const ctx = new PhaseContext({ name }, deps, options, previous);
    Object.assign(ctx.done, done);
    let outcome: PhaseOutcome;
    if (options.skipPhases?.includes(name)) outcome = { status: 'skip', reason: 'skipped by --skip-phase' };
    else if (aborted && !ALWAYS_RUN.has(name)) outcome = { status: 'skip', reason: `not run: ${aborted} failed` };
    else {
      try {
        outcome = await PHASES[name](ctx);
      } catch (error) {
        outcome = { status: 'fail', reason: error instanceof Error ? error.message : String(error) };
      }
    }
    if (outcome.status === 'fail' && outcome.fatal && !aborted) aborted = name;
    ctx.log(`${outcome.status}${outcome.reason ? `: ${outcome.reason}` : ''}`);
    const entry: PhaseRecord = { ...outcome, at: new Date().toISOString() };
    record.phases[name] = done[name] = entry;
    if (outcome.status === 'fail') record.errors.push({ phase: name, reason: outcome.reason ?? 'failed' });
    logs.set(name, ctx.lines);
  }
  const version = record.phases.env_probe?.details?.version;
  record.hermes_version = typeof version === 'string' ? version : (previous?.hermes_version ?? null);
  record.completed_at = new Date().toISOString();
  const path = provisionPath(stateDir);
  if (!options.dryRun) {
    for (const [phase, lines] of logs) await writeFileAtomic(phaseLogPath(stateDir, phase), `${lines.join('\n')}\n`, { durable: false });
    await writeFileAtomic(path, `${JSON.stringify(record, null, 2)}\n`);
  }
  return { ok: record.errors.length === 0, dry_run: options.dryRun === true, provision: record, provision_path: path };
}
