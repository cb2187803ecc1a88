// The model commands (docs/models.md): register, remove, assign, scan and starting a pull.
// Each runs in the one writer queue where it writes, swaps the new registry (or slot file)
// into the running config, and writes its activity row and publishes its event here, once
// (activity/command.ts), whoever asks: the /api/models routes, the svc-admin tools,
// first-run provisioning, the start-up scan.
import { runCommand, type CommandDone, type CommandOrigin } from '../activity/command.js';
import { withRegistry, withSlotConfig } from '../config/load.js';
import type { EventInput } from '../protocol/events.js';
import type { PullJobPayload } from '../protocol/pulls.js';
import type { PullManager } from './pull/jobs.js';
import type { RegistryHost } from './registry-host.js';
import { scanDetails, scanIntoRegistry } from './registry-scan.js';
import { assignModel, registerModel, removeModel, viewModel, type ModelView, type RegisterInput, type ScanResult } from './service.js';

/** What the model commands need of the gateway: the registry's writers, and the pull manager (opened on first use). */
export interface ModelCommandHost extends RegistryHost {
  pulls(): Promise<Pick<PullManager, 'start'>>;
}

export interface ModelRegistration {
  model: ModelView;
  created: boolean;
  warnings: string[];
}

export class ModelCommands {
  constructor(private readonly host: ModelCommandHost) {}

  /** Add a model file under `id` (or refresh the entry of the same file). */
  register(id: string, input: RegisterInput, origin: CommandOrigin): Promise<ModelRegistration> {
    const { host } = this;
    return this.run('model.register', id, origin, async () => {
      const registered = await host.configWrites.run(async () => {
        const result = await registerModel(host.config, id, input);
        host.replaceConfig(withRegistry(host.config, result.registry));
        return result;
      });
      const model = await viewModel(host.config, id, registered.registry.models[id]!);
      return {
        result: { model, created: registered.created, warnings: registered.warnings },
        details: { path: model.path, created: registered.created, size_bytes: model.size_bytes, context_length: model.context_length, mmproj: model.mmproj },
        event: { type: 'model.registered', source: 'models', message: `model ${id} registered (${model.path})`, data: { model: id, path: model.path, source: 'api' } },
      };
    });
  }

  /** Remove a registry entry (never the file); a model a slot names needs `force`. */
  remove(ref: string, force: boolean, origin: CommandOrigin): Promise<{ removed: string; path: string; used_by: string[] }> {
    const { host } = this;
    return this.run('model.delete', ref, origin, async () => {
      const removed = await host.configWrites.run(async () => {
        const result = await removeModel(host.config, ref, { force });
        host.replaceConfig(withRegistry(host.config, result.registry));
        return result;
      });
      return {
        result: { removed: removed.id, path: removed.path, used_by: removed.used_by },
        target: removed.id,
        details: { path: removed.path, force, used_by: removed.used_by },
        event: { type: 'model.removed', source: 'models', message: `model ${removed.id} removed from the registry`, data: { model: removed.id, path: removed.path, force } },
      };
    });
  }

  /** Make a model the default of a slot (its file's [model].default); nothing is loaded. */
  assign(ref: string, slot: string, origin: CommandOrigin): Promise<{ model: string; slot: string; before: string; cleared_path: string | null }> {
    const { host } = this;
    return this.run('model.assign', ref, origin, async () => {
      const assigned = await host.configWrites.run(async () => {
        const result = await assignModel(host.config, ref, slot);
        host.replaceConfig(withSlotConfig(host.config, result.slot, result.config));
        return result;
      });
      const { id, before, cleared_path } = assigned;
      return {
        result: { model: id, slot: assigned.slot, before, cleared_path },
        target: id,
        details: { slot: assigned.slot, before, after: id, ...(cleared_path !== null && { cleared_path }) },
        event: { type: 'model.assigned', source: 'models', message: `model ${id} assigned to slot ${assigned.slot}`, data: { model: id, slot: assigned.slot, before } },
      };
    });
  }

  /**
   * Register the new model files under the roots (each a `model.registered` event, from the
   * scan itself). `atStart`: the start-up scan, a row only when it added something.
   */
  scan(origin: CommandOrigin, atStart = false): Promise<ScanResult> {
    const { host } = this;
    return this.run('model.scan', 'registry.toml', origin, async () => {
      const result = await host.configWrites.run(() => scanIntoRegistry(host));
      if (atStart && result.added.length === 0) return { result };
      return { result, details: { ...scanDetails(result), ...(atStart && { at: 'start' }) } };
    });
  }

  /** Start (or join) a pull of `ref` as `id`; a new job is a `model.pull_start` row (the pull's own events follow from the manager). */
  async pull(id: string, ref: string, options: { force: boolean; context?: number }, origin: CommandOrigin): Promise<PullJobPayload & { existing: boolean }> {
    const { job, existing } = (await this.host.pulls()).start(id, ref, options);
    if (!existing) this.host.record({ action: 'model.pull_start', target: id, actor: origin.actor, details: { ref, force: options.force, ...(origin.via !== undefined && { via: origin.via }) } });
    return { ...job, existing };
  }

  private run<T>(action: string, target: string, origin: CommandOrigin, operation: () => Promise<CommandDone<T, EventInput>>): Promise<T> {
    return runCommand({ record: (entry) => this.host.record(entry), publish: (event) => this.host.events.publish(event) }, { action, target, origin }, operation);
  }
}
