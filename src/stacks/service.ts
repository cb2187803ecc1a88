// The stacks of a running gateway, what /api/stacks exposes: list and show them, create,
// replace, delete, snapshot the live slots, export and import envelopes, apply one and say
// which is active. Every write goes through the one writer queue, swaps the new file into
// the running config and is an activity row and an event. The gateway is known only through
// StackHost (server/context.ts passes itself and makes one StackService, so there is one
// applier, and one apply at a time, per gateway). Who may write what is the caller's
// question: each write takes a check, asked before anything is written.
import type { ActivityInput } from '../activity/store.js';
import { withProfiles, withStacks, type ResolvedConfig } from '../config/load.js';
import type { SvcPaths } from '../config/paths.js';
import { writeProfile } from '../config/profile-store.js';
import type { Profile } from '../config/schema/profiles.js';
import type { Stack } from '../config/schema/stacks.js';
import { stackSeedImmutable, writeStack } from '../config/stack-store.js';
import { engineFor } from '../engines/index.js';
import type { EventBus } from '../events/bus.js';
import { hostCapacity } from '../host/capacity.js';
import type { SerialQueue } from '../lib/serial-queue.js';
import type { PullManager } from '../models/pull/jobs.js';
import { SvcError, type ErrorCode } from '../protocol/errors.js';
import type { ImportStackRequest, StackActivePayload, StackApplyPayload, StackImportPayload, StackPayload } from '../protocol/stacks.js';
import type { SlotCommands } from '../slots/commands.js';
import type { SlotSupervisor } from '../slots/supervisor.js';
import { driftOf, readActiveRecord } from './active.js';
import { StackApplier, type StackChangeCheck } from './apply.js';
import { allStacks, findStack, parseStack, refuseTakenSlug, stackView } from './catalogue.js';
import { exportEnvelope, importedModels, readEnvelope, type StackEnvelope } from './envelope.js';
import { snapshotStack, type SnapshotRequest } from './snapshot.js';

/** Starting a pull and waiting for its end: all a stack apply asks of the pull manager. */
export type ModelPulls = Pick<PullManager, 'start' | 'wait'>;

/** What the stacks need of the gateway. */
export interface StackHost {
  readonly version: string;
  readonly paths: SvcPaths;
  readonly config: ResolvedConfig;
  readonly configWrites: SerialQueue;
  readonly events: EventBus;
  readonly supervisor: SlotSupervisor;
  readonly slotCommands: Pick<SlotCommands, 'load' | 'unload' | 'restart'>;
  replaceConfig(config: ResolvedConfig): void;
  record(entry: ActivityInput): void;
  /** The pull manager, opened on first use. */
  pulls(): Promise<ModelPulls>;
}

/** A stack about to be written: the one it replaces, and the profiles an import adds with it. */
export interface StackWrite {
  slug: string;
  before: Stack | undefined;
  after: Stack;
  incoming: Readonly<Record<string, Profile>>;
}

/** Asked before a stack is written; throws to refuse, having recorded the refusal. */
export type StackWriteCheck = (write: StackWrite) => Promise<void>;

export class StackService {
  private readonly applier: StackApplier;

  constructor(private readonly host: StackHost) {
    this.applier = new StackApplier({
      config: () => host.config,
      replaceConfig: (config) => host.replaceConfig(config),
      configWrites: host.configWrites,
      supervisor: host.supervisor,
      slots: host.slotCommands,
      engineFor,
      publish: (type, message, data, severity = 'info') => host.events.publish({ type, source: 'stacks', severity, message, data } as Parameters<EventBus['publish']>[0]),
      publishSlot: (event) => host.events.publish(event),
      host: () => hostCapacity(host.paths),
      pull: async (modelId) => pullModel(await host.pulls(), modelId),
    });
  }

  list(): StackPayload[] {
    return allStacks(this.host.config);
  }

  show(slug: string): StackPayload {
    const { stack, seed } = findStack(this.host.config, slug);
    return stackView(slug, stack, seed);
  }

  async create(slug: string, body: unknown, actor: string, check: StackWriteCheck): Promise<StackPayload> {
    refuseTakenSlug(this.host.config, slug);
    const stack = parseStack(body, `stack ${slug}`);
    await check({ slug, before: undefined, after: stack, incoming: {} });
    await this.save('stack.create', slug, stack, actor);
    return stackView(slug, stack, false);
  }

  async replace(slug: string, body: unknown, actor: string, check: StackWriteCheck): Promise<StackPayload> {
    const { stack: before, seed } = findStack(this.host.config, slug);
    if (seed) throw stackSeedImmutable(slug);
    const stack = parseStack(body, `stack ${slug}`);
    await check({ slug, before, after: stack, incoming: {} });
    await this.save('stack.update', slug, stack, actor);
    return stackView(slug, stack, false);
  }

  async remove(slug: string, actor: string): Promise<{ deleted: string }> {
    if (findStack(this.host.config, slug).seed) throw stackSeedImmutable(slug);
    await this.save('stack.delete', slug, null, actor);
    return { deleted: slug };
  }

  /** The live slots as a new stack; it names only what the slot files already hold, so it needs no check. */
  async snapshot(request: SnapshotRequest, actor: string): Promise<StackPayload> {
    refuseTakenSlug(this.host.config, request.slug);
    const stack = snapshotStack(this.host.config, request, actor);
    await this.save('stack.snapshot', request.slug, stack, actor);
    return stackView(request.slug, stack, false);
  }

  exportStack(slug: string): StackEnvelope {
    return exportEnvelope(this.host.config, slug, findStack(this.host.config, slug).stack, this.host.version);
  }

  /** Add an exported stack (and the profiles it carries that this gateway lacks); reports whether each model is here. */
  async importStack(request: ImportStackRequest, actor: string, check: StackWriteCheck): Promise<StackImportPayload> {
    const { host } = this;
    const imported = readEnvelope(host.config, request.envelope, request.slug);
    const { slug, stack, added } = imported;
    await check({ slug, before: undefined, after: stack, incoming: Object.fromEntries(added) });
    for (const [name, profile] of added) {
      await host.configWrites.run(async () => host.replaceConfig(withProfiles(host.config, await writeProfile(host.paths, name, profile))));
    }
    await this.save('stack.import', slug, stack, actor);
    const addedNames = new Set(added.map(([name]) => name));
    return {
      stack: stackView(slug, stack, false),
      profiles_added: [...addedNames],
      profiles_kept: imported.profiles.map(([name]) => name).filter((name) => !addedNames.has(name)),
      models: await importedModels(host.config, stack, imported.models),
    };
  }

  /**
   * Apply a stack (stacks/apply.ts), or plan it (`dryRun`). An apply is an activity row, a
   * failure also a `stack.apply.failed` event; a refusal by `check` is not: its asker recorded it.
   */
  async apply(slug: string, options: { dryRun: boolean; pull: boolean; actor: string; check: StackChangeCheck }): Promise<StackApplyPayload> {
    const { host } = this;
    const { dryRun, pull, actor } = options;
    const { stack } = findStack(host.config, slug);
    let refused = false;
    const check: StackChangeCheck = (changes) => options.check(changes).catch((error: unknown) => {
      refused = true;
      throw error;
    });
    try {
      const result = await this.applier.apply(slug, stack, { dryRun, pull, check, actor });
      if (!dryRun) {
        const failed = (result.results ?? []).filter((r) => !r.ok);
        host.record({ action: 'stack.apply', target: slug, actor, outcome: failed.length ? 'error' : 'ok', message: result.summary, details: { hash: result.active?.hash, results: result.results, commit_ms: result.commit_ms, converge_ms: result.converge_ms } });
      }
      return result;
    } catch (error) {
      if (error instanceof SvcError && !dryRun && !refused) {
        host.record({ action: 'stack.apply', target: slug, actor, outcome: 'error', message: error.message, details: { code: error.code, ...error.details } });
        host.events.publish({ type: 'stack.apply.failed', source: 'stacks', severity: 'error', message: error.message, data: { stack: slug, code: error.code } });
      }
      throw error;
    }
  }

  /** Which stack was applied last, and whether the slot files drifted since. */
  async active(): Promise<StackActivePayload> {
    const record = await readActiveRecord(this.host.paths);
    return driftOf(record, new Map(this.host.config.slots.map((s) => [s.name, s.config])));
  }

  /** Put (or, with null, remove) a stack in stacks.toml: one row and one event, or a failure row. */
  private async save(action: string, slug: string, stack: Stack | null, actor: string): Promise<void> {
    const { host } = this;
    try {
      await host.configWrites.run(async () => host.replaceConfig(withStacks(host.config, await writeStack(host.paths, slug, stack))));
    } catch (error) {
      if (error instanceof SvcError) host.record({ action, target: slug, actor, outcome: 'error', message: error.message, details: { code: error.code } });
      throw error;
    }
    host.record({ action, target: slug, actor, details: stack ? { slots: stack.slots.map((r) => r.slot) } : {} });
    const type = stack === null ? 'stack.deleted' : action === 'stack.update' ? 'stack.updated' : 'stack.created';
    host.events.publish({ type, source: 'stacks', message: `stack ${slug} ${type.split('.')[1]}`, data: { stack: slug } });
  }
}

/** Pull a model for an apply and wait for the job's end; a job that does not end done is the slot's error. */
export async function pullModel(pulls: ModelPulls, modelId: string): Promise<void> {
  pulls.start(modelId, modelId, { force: false });
  const job = await pulls.wait(modelId);
  if (!job || job.state === 'done') return;
  throw new SvcError((job.error?.code ?? 'model.pull_failed') as ErrorCode, `pulling ${modelId}: ${job.error?.message ?? job.state}`, { model: modelId });
}
