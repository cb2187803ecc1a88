// The slot commands (docs/api.md, "Slots"): load, unload, restart, swap, create, edit,
// enable, delete and the default-model assignment. Each owns its whole sequence, once: the
// GPU arbiter before any start (load, swap and restart alike, so a restart cannot take a GPU
// that image mode holds), the supervisor's per-slot queue, the slot file through the one
// writer queue (slot-config.ts), its event and its activity row, a failure's row too. The
// routes, the svc-admin tools, a stack apply and first-run provisioning call these and add
// nothing of their own, so the copies cannot drift.
import { runCommand, type CommandDone, type CommandOrigin } from '../activity/command.js';
import type { ActivityInput } from '../activity/store.js';
import { slotStateDir } from '../config/slot-state-file.js';
import type { SlotFile } from '../config/schema/slot.js';
import { SlotError } from '../protocol/errors.js';
import type { EventInput, EventPayloads } from '../protocol/events.js';
import { CreateSlotRequestSchema, EditSlotRequestSchema } from '../protocol/slot-requests.js';
import { keepMaskedSecrets } from '../protocol/url-secrets.js';
import { parseRequest } from '../protocol/validate.js';
import type { GpuArbiter } from './gpu-arbiter.js';
import type { CreatedSlot, SlotChange, SlotChangeCheck, SlotConfigService } from './slot-config.js';
import { isLive } from './state-machine.js';
import type { SlotSupervisor } from './supervisor.js';
import type { SlotView } from './view.js';

/** What the commands act through: narrow, so a unit test hands in its own. */
export interface SlotCommandDeps {
  supervisor: Pick<SlotSupervisor, 'view' | 'load' | 'unload' | 'restart' | 'reconcile' | 'clearModelOverride'>;
  arbiter: Pick<GpuArbiter, 'beforeLoad'>;
  slotConfig: Pick<SlotConfigService, 'entry' | 'modelIdFor' | 'create' | 'edit' | 'remove' | 'persistDefaultModel'>;
  /** The slot file as running, if the slot exists (a PUT's masked secrets are kept from it). */
  slotFile: (name: string) => SlotFile | undefined;
  stateRoot: string;
  record: (entry: ActivityInput) => void;
  publish: (event: EventInput) => void;
}

/** Who asks; for a change to a slot file, also the check asked before it is written (it throws to refuse, having recorded the refusal itself). */
export interface SlotOrigin extends CommandOrigin {
  check?: SlotChangeCheck;
}

export interface SlotEdit {
  slot: SlotView;
  changes: SlotChange[];
  restart_required: boolean;
}

export interface SlotDeletion {
  deleted: string;
  file: string;
  state_dir: string;
  was: SlotView['state'];
}

/** `slot.created`, built here only: a created slot file (POST /api/slots, provisioning, a stack apply). */
export function slotCreatedEvent(data: EventPayloads['slot.created'], by?: string): EventInput {
  return { type: 'slot.created', source: `slot:${data.slot}`, message: `slot ${data.slot} created${by ? ` by ${by}` : ''} (${data.file})`, data };
}

/** `slot.edited`: the keys of a slot file that changed. */
export function slotEditedEvent(data: EventPayloads['slot.edited'], by?: string): EventInput {
  return { type: 'slot.edited', source: `slot:${data.slot}`, message: `slot ${data.slot} edited${by ? ` by ${by}` : ''}: ${data.keys.join(', ')}`, data };
}

/** An engine may be running or about to (the supervisor's isLive; a disabled slot has none). */
const engineLive = (view: SlotView) => view.state !== 'disabled' && isLive(view.state);

const runtimeDetails = (view: SlotView) => ({ state: view.state, model: view.model, port: view.port, pid: view.pid });

export class SlotCommands {
  constructor(private readonly deps: SlotCommandDeps) {}

  /** Start a slot (optionally on another registry model, an override until the next config change) and wait until it is ready. */
  load(name: string, ref: string | undefined, origin: SlotOrigin): Promise<SlotView> {
    return this.run('slot.load', name, origin, { ...(ref !== undefined && { model: ref }) }, async () => {
      const model = ref === undefined ? undefined : this.deps.slotConfig.modelIdFor(ref);
      await this.deps.arbiter.beforeLoad(name);
      await this.deps.supervisor.load(name, model);
      const view = this.deps.supervisor.view(name);
      return { result: view, details: { ...runtimeDetails(view), ...(ref !== undefined && { override: true }) } };
    });
  }

  unload(name: string, origin: CommandOrigin, reason?: string): Promise<SlotView> {
    return this.run('slot.unload', name, origin, {}, async () => {
      const was = this.deps.supervisor.view(name).state;
      await this.deps.supervisor.unload(name, reason);
      const view = this.deps.supervisor.view(name);
      return { result: view, details: { was, state: view.state } };
    });
  }

  restart(name: string, origin: SlotOrigin): Promise<SlotView> {
    return this.run('slot.restart', name, origin, {}, async () => {
      await this.deps.arbiter.beforeLoad(name);
      await this.deps.supervisor.restart(name);
      const view = this.deps.supervisor.view(name);
      return { result: view, details: runtimeDetails(view) };
    });
  }

  /** Run the slot on another model; `persist` (the default) writes it as [model].default first. */
  swap(name: string, ref: string, persist: boolean, origin: SlotOrigin): Promise<SlotView> {
    const { slotConfig, supervisor } = this.deps;
    return this.run('slot.swap', name, origin, { model: ref, persist }, async () => {
      const entry = slotConfig.entry(name);
      const model = slotConfig.modelIdFor(ref);
      const before = supervisor.view(name).model;
      // Refuse before the file is written: a disabled slot is never started.
      if (!entry.config.slot.enabled) throw new SlotError('slot.disabled', `slot ${name} is disabled in ${entry.file}`, { slot: name });
      await this.deps.arbiter.beforeLoad(name);
      if (persist) await slotConfig.persistDefaultModel(name, model);
      try {
        // A swap is a load on the new model (the supervisor stops an engine on another one first).
        await supervisor.load(name, model);
      } finally {
        // Persisted: the slot file now says the same; no override should outlive the swap.
        if (persist) supervisor.clearModelOverride(name);
      }
      const view = supervisor.view(name);
      return { result: view, details: { before, after: model, persist, pid: view.pid, port: view.port } };
    });
  }

  /** Write a new slot file from a request body (validated here, so a bad body is a failure row too). */
  create(body: Record<string, unknown>, origin: SlotOrigin): Promise<CreatedSlot> {
    const target = typeof body.name === 'string' ? body.name : '';
    return this.run('slot.create', target, origin, { request: body }, async (check) => {
      const created = await this.deps.slotConfig.create(parseRequest(CreateSlotRequestSchema, body), check);
      const { name, file, type, provider, model, port, device } = created;
      return { result: created, target: name, details: { ...created }, event: slotCreatedEvent({ slot: name, file, type, provider, model, port, device }) };
    });
  }

  /** Change a slot file's fields (a masked secret sent back as GET showed it stays as stored). */
  edit(name: string, body: Record<string, unknown>, origin: SlotOrigin): Promise<SlotEdit> {
    const kept = keepSlotSecrets(body, this.deps.slotFile(name));
    return this.run('slot.edit_config', name, origin, { request: kept }, async (check) => {
      const changes = await this.deps.slotConfig.edit(name, parseRequest(EditSlotRequestSchema, kept), check);
      const view = this.deps.supervisor.view(name);
      const restartRequired = changes.length > 0 && engineLive(view);
      const result = { slot: view, changes, restart_required: restartRequired };
      // Nothing changed: nothing happened, so no row and no event.
      if (changes.length === 0) return { result };
      return { result, details: { changes, restart_required: restartRequired }, event: slotEditedEvent({ slot: name, keys: changes.map((c) => c.key), restart_required: restartRequired }) };
    });
  }

  /** Turn a slot on or off: an edit of [slot].enabled. */
  enable(name: string, enabled: boolean, origin: SlotOrigin): Promise<SlotEdit> {
    return this.edit(name, { enabled }, origin);
  }

  /** Remove a slot file; an engine that may be running (or requests in flight) needs `force`. */
  delete(name: string, force: boolean, origin: SlotOrigin): Promise<SlotDeletion> {
    const { supervisor, slotConfig } = this.deps;
    return this.run('slot.delete', name, origin, { force }, async () => {
      const view = supervisor.view(name);
      if (!force && (engineLive(view) || view.in_flight > 0)) {
        const why = view.in_flight > 0 ? `has ${view.in_flight} request(s) in flight` : `is ${view.state}`;
        throw new SlotError('slot.busy', `slot ${name} ${why}; unload it first (svc slot unload ${name}) or delete with force (svc slot delete ${name} --force)`, { slot: name, state: view.state, in_flight: view.in_flight });
      }
      const file = await slotConfig.remove(name);
      // The slot is gone from the running config; reconcile stops its engine.
      await supervisor.reconcile();
      const event: EventInput = { type: 'slot.deleted', source: `slot:${name}`, message: `slot ${name} deleted (${file})`, data: { slot: name, file, was: view.state, force } };
      return { result: { deleted: name, file, state_dir: slotStateDir(this.deps.stateRoot, name), was: view.state }, details: { force, file, was: view.state }, event };
    });
  }

  /** Persist [model].default without starting anything (PUT /api/install/slots/<name>/model). */
  assignDefault(name: string, ref: string, origin: SlotOrigin): Promise<{ slot: SlotView; model: string; before: string }> {
    const { slotConfig, supervisor } = this.deps;
    return this.run('slot.edit_defaults', name, origin, { model: ref }, async () => {
      slotConfig.entry(name);
      const model = slotConfig.modelIdFor(ref);
      const before = await slotConfig.persistDefaultModel(name, model);
      const view = supervisor.view(name);
      return { result: { slot: view, model, before }, details: { key: 'model.default', before, after: model, state: view.state } };
    });
  }

  /** One command (activity/command.ts); a refusal by the origin's check recorded its own row. */
  private run<T>(action: string, target: string, origin: SlotOrigin, asked: Record<string, unknown>, operation: (check: SlotChangeCheck | undefined) => Promise<CommandDone<T, EventInput>>): Promise<T> {
    const refusals = new WeakSet<object>();
    const check: SlotChangeCheck | undefined = origin.check && ((before, after) => origin.check!(before, after).catch((error: unknown) => {
      if (typeof error === 'object' && error !== null) refusals.add(error);
      throw error;
    }));
    return runCommand(this.deps, { action, target, origin, asked, recordedElsewhere: (error) => refusals.has(error as object) }, () => operation(check));
  }
}

/** A PUT's env, extra_args and file as sent, except values that are exactly what GET /api/slots/<name> showed masked: those stay as stored. */
function keepSlotSecrets(body: Record<string, unknown>, config: SlotFile | undefined): Record<string, unknown> {
  if (!config) return body;
  return {
    ...body,
    ...(body.env !== undefined && { env: keepMaskedSecrets(body.env, config.server.env) }),
    ...(body.extra_args !== undefined && { extra_args: keepMaskedSecrets(body.extra_args, config.server.extra_args) }),
    ...(body.file !== undefined && { file: keepMaskedSecrets(body.file, config) }),
  };
}
