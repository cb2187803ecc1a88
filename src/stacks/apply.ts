// Applying a stack: a declarative replace of the slot set. Four steps:
//
//   1. gather (inside the config writer queue): every slot file, the runtime states, the
//      choices new slots need (device, engine, a free port), the models' status; plan;
//   2. guards (plan.ts): refuse before anything is written;
//   3. commit: the slot files, capabilities.toml (child rows) and the active-stack record
//      as one change set (config/change-set.ts): all or none, even across a SIGKILL;
//      then the whole configuration is loaded again and swapped in;
//   4. converge: unload running slots the stack does not name, then load, swap or restart
//      the named ones in parallel, each a slot command (slots/commands.ts: the GPU arbiter,
//      an activity row with via stack.apply). Failures are reported per slot; the files stay
//      the new set.
//
// A dry run stops after step 2 and returns the same plan.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { commitChangeSet, type FileChange } from '../config/change-set.js';
import type { ResolvedConfig } from '../config/load.js';
import { loadConfig } from '../config/load.js';
import { errorsOf, formatProblem } from '../config/problems.js';
import type { Stack } from '../config/schema/stacks.js';
import { SlotFileSchema, type SlotFile } from '../config/schema/slot.js';
import { slotFilePath } from '../config/slot-files.js';
import type { SerialQueue } from '../lib/serial-queue.js';
import { readTomlFile, stringifyToml, type TomlDoc } from '../config/toml.js';
import type { EngineAdapter } from '../engines/types.js';
import { estimateFit } from '../models/pull/fit.js';
import { catalogueEntry } from '../protocol/model-catalogue.js';
import { ConfigError, SlotError, SvcError } from '../protocol/errors.js';
import type { EventInput, EventPayloads } from '../protocol/events.js';
import type { StackApplyPayload, StackMemoryEstimate, StackModelReport, StackSlotResult } from '../protocol/stacks.js';
import { CONTEXT_SLOT_TYPES, DEFAULT_CTX_SIZE } from '../protocol/slot-requests.js';
import { chooseDevice, chooseProvider } from '../slots/slot-choices.js';
import { portIsFree } from '../lib/process.js';
import type { CommandOrigin } from '../activity/command.js';
import { slotCreatedEvent, slotEditedEvent, type SlotCommands } from '../slots/commands.js';
import type { SlotSupervisor } from '../slots/supervisor.js';
import { activeRecordPath, slotSetHash, type ActiveRecord } from './active.js';
import { planStack, RUNNING_STATES, type StackPlanResult } from './plan.js';
import { deviceOfProfile, effectiveRows, profileNamed, typeForRow, type EffectiveRow, type NewSlotFacts } from './rows.js';
import { own } from '../lib/own.js';

export type StackApplyEvent = 'stack.apply.started' | 'stack.apply.committed' | 'stack.apply.slot' | 'stack.apply.completed';

export interface StackApplyDeps {
  config: () => ResolvedConfig;
  replaceConfig: (config: ResolvedConfig) => void;
  configWrites: SerialQueue;
  supervisor: Pick<SlotSupervisor, 'list' | 'view' | 'clearModelOverride'>;
  /** Every start and stop goes through the slot commands: the GPU arbiter, the activity row, as through the API. */
  slots: Pick<SlotCommands, 'load' | 'unload' | 'restart'>;
  engineFor: (provider: string) => EngineAdapter | undefined;
  publish: <T extends StackApplyEvent>(type: T, message: string, data: EventPayloads[T], severity?: 'info' | 'warn' | 'error') => void;
  /** An event of the slots the apply changed (slot.created, slot.edited), built as the slot commands build it. */
  publishSlot: (event: EventInput) => void;
  host: () => Promise<{ ramAvailableMb: number; vramMb: number }>;
  /** Pull a model (a catalogue name, or a registry entry with its repo) and wait for the end; throws when it fails. */
  pull: (modelId: string) => Promise<void>;
}

/** Asked inside the writer queue before anything is written, with every slot file the apply changes; throws to refuse. */
export type StackChangeCheck = (changes: readonly { slot: string; before: SlotFile | undefined; after: SlotFile }[]) => Promise<void>;

interface Gathered {
  rows: EffectiveRow[];
  plan: StackPlanResult;
  models: StackModelReport[];
  memory: StackMemoryEstimate;
  configs: Map<string, SlotFile>;
}

export class StackApplier {
  private running: string | null = null;

  constructor(private readonly deps: StackApplyDeps) {}

  async apply(slug: string, stack: Stack, options: { dryRun: boolean; pull?: boolean; check?: StackChangeCheck; actor?: string }): Promise<StackApplyPayload> {
    if (options.dryRun) return this.payload(slug, await this.gather(stack), true);
    if (this.running) throw new SvcError('stacks.apply_in_progress', `stack ${this.running} is being applied; wait for it to finish`, { stack: this.running });
    this.running = slug;
    try {
      return await this.applyNow(slug, stack, options.pull === true, options.check, { actor: options.actor ?? 'api', via: 'stack.apply' });
    } finally {
      this.running = null;
    }
  }

  private async applyNow(slug: string, stack: Stack, pull: boolean, check: StackChangeCheck | undefined, origin: CommandOrigin): Promise<StackApplyPayload> {
    const { deps } = this;
    const started = performance.now();
    const { gathered, record } = await deps.configWrites.run(async () => {
      const g = await this.gather(stack);
      refuseOnGuards(slug, g.plan);
      await check?.(g.plan.changes.filter((c) => c.action !== 'unchanged').map((c) => ({ slot: c.slot, before: g.configs.get(c.slot), after: SlotFileSchema.parse(g.plan.docs.get(c.slot)) })));
      deps.publish('stack.apply.started', `applying stack ${slug}: ${summaryOf(g.plan)}`, { stack: slug, creates: g.plan.creates, unloads: g.plan.unloads, slots: g.plan.changes.map((c) => c.slot) });
      const active = await this.commit(slug, g);
      return { gathered: g, record: active };
    });
    const commitMs = performance.now() - started;
    deps.publish('stack.apply.committed', `stack ${slug}: slot files written`, { stack: slug, hash: record.hash, commit_ms: Math.round(commitMs) });
    const convergeStart = performance.now();
    const toPull = pull ? new Set(gathered.models.filter((m) => m.status === 'pullable').map((m) => m.id)) : new Set<string>();
    const results = await this.converge(slug, gathered.plan, toPull, origin);
    const convergeMs = performance.now() - convergeStart;
    const failed = results.filter((r) => !r.ok).map((r) => r.slot);
    deps.publish('stack.apply.completed', `stack ${slug} applied${failed.length ? `; failed: ${failed.join(', ')}` : ''}`, { stack: slug, failed, converge_ms: Math.round(convergeMs) }, failed.length ? 'warn' : 'info');
    return { ...this.payload(slug, gathered, false), results, active: { stack: slug, hash: record.hash, applied_at: record.applied_at }, commit_ms: round(commitMs), converge_ms: round(convergeMs) };
  }

  private payload(slug: string, g: Gathered, dryRun: boolean): StackApplyPayload {
    return { stack: slug, dry_run: dryRun, ...(dryRun && g.plan.unresolvable.length > 0 && { unresolvable: g.plan.unresolvable }), summary: summaryOf(g.plan), changes: g.plan.changes, creates: g.plan.creates, unloads: g.plan.unloads, models: g.models, memory: g.memory, ...(dryRun && g.plan.problems.length > 0 && { problems: g.plan.problems }) };
  }

  private async gather(stack: Stack): Promise<Gathered> {
    const config = this.deps.config();
    const rows = effectiveRows(stack);
    const files = new Map<string, TomlDoc>();
    for (const entry of config.slots) {
      const read = await readTomlFile(join(config.paths.slotsDir, `${entry.name}.toml`), entry.file);
      if (read.status === 'ok') files.set(entry.name, read.doc);
    }
    const configs = new Map(config.slots.map((s) => [s.name, s.config]));
    const states = new Map(this.deps.supervisor.list({ memory: false }).map((v) => [v.name, v.state]));
    const facts = await this.newSlotFacts(config, rows.filter((r) => !files.has(r.slot)));
    const models = await Promise.all([...new Set(rows.map((r) => r.model))].map((id) => this.modelStatus(config, id, rows)));
    const busyPorts = new Set<number>();
    for (const row of rows) {
      const port = configs.get(row.slot)?.slot.port;
      if (port !== undefined && !RUNNING_STATES.has(states.get(row.slot) ?? 'stopped') && !(await portIsFree(port))) busyPorts.add(port);
    }
    const plan = planStack({ rows, files, configs, states, facts, userProfiles: config.profiles.profiles, models, busyPorts });
    return { rows, plan, models, memory: await this.memory(config, rows), configs };
  }

  /** Type, device, engine and a free port for each slot the apply creates. */
  private async newSlotFacts(config: ResolvedConfig, rows: readonly EffectiveRow[]): Promise<Map<string, NewSlotFacts>> {
    const facts = new Map<string, NewSlotFacts>();
    const claimed = new Set(config.slots.map((s) => s.config.slot.port));
    const { port_range_start: start, port_range_end: end } = config.svc.slots;
    for (const row of rows) {
      const profile = profileNamed(row.profile, config.profiles.profiles);
      const type = typeForRow(row, profile, own(config.registry.models, row.model)?.capabilities ?? []);
      const device = row.device ?? (profile ? deviceOfProfile(profile) : null) ?? (await chooseDevice(config.paths, {})).device;
      const provider = row.provider ?? (await chooseProvider(type, device, config.svc.engines, process.env)).provider;
      let port = start;
      while (port <= end && (claimed.has(port) || !(await portIsFree(port)))) port++;
      if (port > end) throw new SlotError('slot.no_free_port', `no free port in the pool ${start}-${end} for slot ${row.slot}`, { range: [start, end], slot: row.slot });
      claimed.add(port);
      // The default context, but never above the model's own (what svc slot create warns about).
      const native = own(config.registry.models, row.model)?.metadata.context_length ?? null;
      const context = CONTEXT_SLOT_TYPES.includes(type) ? Math.min(DEFAULT_CTX_SIZE, native ?? DEFAULT_CTX_SIZE) : null;
      facts.set(row.slot, { port, type, device, provider, context_size: context });
    }
    return facts;
  }

  /** present: registered with its file (or named by id by its engine); pullable: a Hugging Face repo is known; else unresolvable. */
  private async modelStatus(config: ResolvedConfig, id: string, rows: readonly EffectiveRow[]): Promise<StackModelReport> {
    const entry = own(config.registry.models, id);
    if (entry && (await stat(entry.path).then((s) => s.isFile(), () => false))) return { id, status: 'present' };
    if (entry?.hf_repo || catalogueEntry(id)) return { id, status: 'pullable' };
    const providers = rows.filter((r) => r.model === id).map((r) => r.provider ?? config.slots.find((s) => s.name === r.slot)?.config.slot.provider);
    if (!entry && providers.some((p) => p && this.deps.engineFor(p)?.defaultModelId)) return { id, status: 'present' };
    return { id, status: 'unresolvable' };
  }

  /** The pull fit check's estimate, summed over the named slots' models. */
  private async memory(config: ResolvedConfig, rows: readonly EffectiveRow[]): Promise<StackMemoryEstimate> {
    const host = await this.deps.host();
    let needed = 0;
    const unknown: string[] = [];
    for (const row of rows) {
      const size = own(config.registry.models, row.model)?.size_bytes ?? catalogueEntry(row.model)?.size_bytes ?? null;
      if (size === null) unknown.push(row.model);
      else needed += estimateFit({ weightsBytes: size, shape: null, ramAvailableMb: host.ramAvailableMb, vramMb: host.vramMb }).total_mb;
    }
    const budget = host.ramAvailableMb + host.vramMb;
    return { needed_mb: needed, ram_available_mb: host.ramAvailableMb, vram_mb: host.vramMb, budget_mb: budget, fits: needed <= budget, unknown: [...new Set(unknown)] };
  }

  /** Step 3: the slot files, capabilities.toml and the active record as one change set; then reload. */
  private async commit(slug: string, g: Gathered): Promise<ActiveRecord> {
    const { deps } = this;
    const config = deps.config();
    const changes: FileChange[] = [];
    const after = new Map(g.configs);
    for (const change of g.plan.changes) {
      const doc = g.plan.docs.get(change.slot)!;
      after.set(change.slot, SlotFileSchema.parse(doc));
      if (change.action !== 'unchanged') changes.push({ path: slotFilePath(config.paths, change.slot)!, after: stringifyToml(doc) });
    }
    const capabilityRows = g.rows.filter((r) => r.capability);
    if (capabilityRows.length > 0) changes.push(await capabilitiesChange(config, capabilityRows));
    const record: ActiveRecord = { stack: slug, applied_at: new Date().toISOString(), ...slotSetHash(after) };
    changes.push({ path: activeRecordPath(config.paths), after: `${JSON.stringify(record, null, 2)}\n` });
    await commitChangeSet(config.paths, `stack apply ${slug}`, changes, async () => {
      const outcome = await loadConfig(config.paths);
      if (!outcome.ok) {
        throw new ConfigError('config.invalid', `stack ${slug} not applied: the configuration does not load with it: ${errorsOf(outcome.problems).map(formatProblem).join('; ')}`, {
          problems: errorsOf(outcome.problems).map(({ file, path, message }) => ({ file, path, message })),
        });
      }
      deps.replaceConfig(outcome.config);
    });
    // The slot files changed as POST/PUT /api/slots would change them: the same events.
    for (const change of g.plan.changes) {
      if (change.action === 'unchanged') continue;
      deps.supervisor.clearModelOverride(change.slot);
      const { slot } = after.get(change.slot)!;
      const file = `slots/${change.slot}.toml`;
      const by = `stack ${slug}`;
      if (change.action === 'create') deps.publishSlot(slotCreatedEvent({ slot: change.slot, file, type: slot.type, provider: slot.provider, model: change.after_model, port: slot.port, device: slot.device }, by));
      else deps.publishSlot(slotEditedEvent({ slot: change.slot, keys: change.fields.map((f) => f.key), restart_required: change.runtime === 'restart' || change.runtime === 'swap' }, by));
    }
    return record;
  }

  /** Step 4: unload first (it frees memory), then start the named slots in parallel. */
  private async converge(slug: string, plan: StackPlanResult, toPull: ReadonlySet<string>, origin: CommandOrigin): Promise<StackSlotResult[]> {
    const { supervisor, slots } = this.deps;
    const step = async (slot: string, runtime: StackSlotResult['runtime'], run: () => Promise<unknown>): Promise<StackSlotResult> => {
      const t0 = performance.now();
      let error: StackSlotResult['error'];
      try {
        await run();
      } catch (e) {
        error = e instanceof SvcError ? { code: e.code, message: e.message } : { code: 'internal.error', message: (e as Error).message };
      }
      const result: StackSlotResult = { slot, runtime, ok: !error, state: supervisor.view(slot, { memory: false }).state, ms: round(performance.now() - t0), ...(error && { error }) };
      this.deps.publish('stack.apply.slot', `stack ${slug}: ${runtime} ${slot} ${error ? `failed: ${error.message}` : 'done'}`, { stack: slug, ...result }, error ? 'warn' : 'info');
      return result;
    };
    const results: StackSlotResult[] = [];
    for (const name of plan.unloads) results.push(await step(name, 'unload', () => slots.unload(name, origin, 'stack apply')));
    // One pull per model, shared by the slots that use it; a slot starts once its model is in.
    const pulls = new Map([...toPull].map((id) => [id, this.deps.pull(id)]));
    for (const pending of pulls.values()) pending.catch(() => undefined);
    const pulled = async (model: string) => {
      await pulls.get(model);
    };
    results.push(...(await Promise.all(plan.changes.map((change) => {
      switch (change.runtime) {
        case 'load': return step(change.slot, 'load', async () => {
          await pulled(change.after_model);
          await slots.load(change.slot, undefined, origin);
        });
        // The file already names the new model: a swap is a restart on it.
        case 'swap': return step(change.slot, 'swap', async () => {
          await pulled(change.after_model);
          await slots.restart(change.slot, origin);
        });
        case 'restart': return step(change.slot, 'restart', async () => {
          await pulled(change.after_model);
          await slots.restart(change.slot, origin);
        });
        default: return Promise.resolve({ slot: change.slot, runtime: 'none' as const, ok: true, state: supervisor.view(change.slot, { memory: false }).state, ms: 0 });
      }
    }))));
    return results;
  }
}

/** capabilities.toml with each child row's capability pointed at its slot; other entries kept. */
async function capabilitiesChange(config: ResolvedConfig, rows: readonly EffectiveRow[]): Promise<FileChange> {
  const path = join(config.paths.configRoot, 'capabilities.toml');
  const read = await readTomlFile(path, 'capabilities.toml');
  const doc: TomlDoc = read.status === 'ok' ? { ...read.doc } : {};
  const table: TomlDoc = { ...((doc.capabilities as TomlDoc | undefined) ?? {}) };
  for (const row of rows) table[row.capability!.child] = { slot: row.slot, enabled: true };
  return { path, after: stringifyToml({ ...doc, capabilities: table }) };
}

function refuseOnGuards(slug: string, plan: StackPlanResult): void {
  const { problems } = plan;
  if (problems.length === 0) return;
  const text = problems.map((p) => `${p.slot}: ${p.message}`).join('; ');
  const details = { stack: slug, problems };
  if (problems.every((p) => p.guard === 'npu_exclusivity')) throw new SlotError('slot.npu_exclusivity_violation', `stack ${slug} not applied: ${text}`, details);
  throw new SlotError('slot.config_error', `stack ${slug} not applied, nothing was written: ${text}`, details);
}

function summaryOf(plan: StackPlanResult): string {
  const count = (runtime: string) => plan.changes.filter((c) => c.runtime === runtime).length;
  return `${plan.creates.length} created, ${plan.changes.filter((c) => c.action === 'edit').length} edited, ${count('load')} to load, ${count('swap')} to swap, ${count('restart')} to restart, ${plan.unloads.length} to unload`;
}

const round = (ms: number) => Math.round(ms * 10) / 10;
