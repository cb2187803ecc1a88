// First-run provisioning (POST /api/install/apply, what `svc setup` sends). For each slot
// asked for: an existing slot file is left alone; a model that is registered is used; the
// tiny demo models are written into the store and registered; any other model is pulled
// (when `pull`) and its slot is created by a later apply, once the pull is done. When every
// slot exists, the first-run sentinel is written. Idempotent: run it again.
//
// Why here, below slots: everything provisioning touches sits below setup (the config files,
// the demo GGUF writer, the registry, the pull manager, events, the activity log) but slot
// creation, the slot command (slots/commands.ts, with its event and activity row) that the
// gateway hands in through ProvisionHost, the way update/service.ts gets UpdateHost. So
// setup still never reaches the runtime a live gateway owns.
import { access, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { withSvcToml, type ResolvedConfig } from '../config/load.js';
import { updateSvcToml } from '../config/settings.js';
import { writeTinyModel } from '../engines/gguf/tiny-model.js';
import { TINY_MODEL_ID, TINY_RERANKER_ID } from '../protocol/builtin-models.js';
import { engineFor } from '../engines/index.js';
import type { EventBus } from '../events/bus.js';
import { catalogueEntry } from '../protocol/model-catalogue.js';
import type { ModelCommands } from '../models/commands.js';
import { storeOf } from '../config/model-store.js';
import { ConfigError, SvcError } from '../protocol/errors.js';
import type { InstallApplyInput, InstallApplyPayload, InstallSlotOutcome } from '../protocol/install.js';
import type { CreateSlotInput } from '../protocol/slot-requests.js';
import { completeInstall, type FirstRunHost } from './first-run.js';
import { own } from '../lib/own.js';

/** What slot creation answers (slots/slot-config.ts CreatedSlot has more; provisioning reads these). */
export interface ProvisionedSlot {
  name: string;
  file: string;
  type: string;
  provider: string;
  model: string;
  port: number;
  device: string;
  warnings: string[];
}

/** What provisioning needs of the gateway (server/context.ts passes itself). */
export interface ProvisionHost extends FirstRunHost {
  readonly events: EventBus;
  replaceConfig(config: ResolvedConfig): void;
  /** The slot command POST /api/slots runs (its row and its slot.created event): the one arrow up, handed in. */
  readonly slotCommands: { create(body: Record<string, unknown>, origin: { actor: string; via?: string }): Promise<ProvisionedSlot> };
  /** The model commands POST /api/models and its pull route run (their rows, the model.registered event); a pull opens the pull manager on first use. */
  readonly modelCommands: Pick<ModelCommands, 'register' | 'pull'>;
}

/** One slot asked for, with what its model needs. */
interface SlotRequest {
  slot: CreateSlotInput;
  /** Where to pull its model from (default: the catalogue's id for it, else the model id). */
  ref: string | undefined;
  pull: boolean;
  store: string;
}

/** What is left to say of a slot whose model is not there yet. */
type Waiting = Omit<InstallSlotOutcome, 'name' | 'model'>;

const DEMO_MODELS: Record<string, 'chat' | 'reranker'> = { [TINY_MODEL_ID]: 'chat', [TINY_RERANKER_ID]: 'reranker' };

export async function provision(host: ProvisionHost, request: InstallApplyInput, actor: string): Promise<InstallApplyPayload> {
  if (request.storage_dir && resolve(request.storage_dir) !== resolve(storeOf(host.config))) await persistStore(host, request.storage_dir, actor);
  const store = storeOf(host.config);
  const modelsAdded: string[] = [];
  const outcomes: InstallSlotOutcome[] = [];
  for (const { ref, ...slot } of request.slots) outcomes.push(await provisionSlot(host, { slot, ref, pull: request.pull, store }, actor, modelsAdded));
  const complete = outcomes.every((o) => o.status === 'created' || o.status === 'exists');
  if (complete) await completeInstall(host, actor);
  host.record({ action: 'install.apply', actor, outcome: complete ? 'ok' : 'error', details: { storage_dir: store, slots: outcomes, models_added: modelsAdded } });
  return { storage_dir: store, slots: outcomes, models_added: modelsAdded, complete };
}

async function provisionSlot(host: ProvisionHost, asked: SlotRequest, actor: string, modelsAdded: string[]): Promise<InstallSlotOutcome> {
  const { slot } = asked;
  const base = { name: slot.name, model: slot.model };
  if (host.config.slots.some((s) => s.name === slot.name) || (await exists(join(host.paths.slotsDir, `${slot.name}.toml`)))) {
    return { ...base, status: 'exists', message: `slots/${slot.name}.toml exists; left as it is` };
  }
  const waiting = await provideModel(host, asked, actor, modelsAdded);
  if (waiting) return { ...base, ...waiting };
  try {
    const created = await host.slotCommands.create({ ...slot }, { actor, via: 'install.apply' });
    return { ...base, status: 'created', port: created.port, ...(created.warnings.length > 0 && { message: created.warnings.join('; ') }) };
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    return { ...base, status: 'failed', message: `${error.code}: ${error.message}` };
  }
}

/** Make the slot's model available now (null), or say why its slot waits: skipped, pulling, or a pull that failed. */
async function provideModel(host: ProvisionHost, { slot, ref, pull, store }: SlotRequest, actor: string, modelsAdded: string[]): Promise<Waiting | null> {
  // kokoro, moonshine, …: engines that name their model by id need nothing registered.
  const namedById = slot.provider !== undefined && engineFor(slot.provider)?.defaultModelId !== undefined;
  if (namedById || own(host.config.registry.models, slot.model)) return null;
  const demo = own(DEMO_MODELS, slot.model);
  if (demo) {
    await registerDemoModel(host, store, slot.model, demo, actor);
    modelsAdded.push(slot.model);
    return null;
  }
  if (!pull) return { status: 'skipped', message: `model ${slot.model} is not registered and pull is off; pull it (svc model pull ${slot.model}) and run setup again` };
  const job = await host.modelCommands.pull(slot.model, ref ?? catalogueEntry(slot.model)?.id ?? slot.model, { force: false }, { actor, via: 'install.apply' });
  if (job.state === 'failed') return { status: 'failed', message: job.error?.message ?? 'the pull failed' };
  return { status: 'pulling', job: job.id, message: `pulling ${slot.model}; run apply again when it is done` };
}

/** A demo model (random weights, svc writes it itself) in the store, registered by the model command. */
async function registerDemoModel(host: ProvisionHost, store: string, model: string, variant: 'chat' | 'reranker', actor: string): Promise<void> {
  const file = join(store, `${model}.gguf`);
  if (!(await exists(file))) {
    await mkdir(store, { recursive: true });
    await writeTinyModel(file, { variant });
  }
  await host.modelCommands.register(model, { path: file }, { actor, via: 'install.apply' });
}

/** The gateway runs while it provisions: no synchronous disk work. */
const exists = (path: string) => access(path).then(() => true, () => false);

/** [models].store in svc.toml, through the settings writer (validated, atomic). */
async function persistStore(host: ProvisionHost, dir: string, actor: string): Promise<void> {
  const result = await host.configWrites.run(() => updateSvcToml(host.paths, { models: { store: dir } }, () => [], true));
  if (!result.ok) throw new ConfigError('config.invalid', `storage_dir not saved: ${result.problems.map((p) => p.message).join('; ')}`, { problems: result.problems });
  const before = host.config.svc.models.store;
  host.replaceConfig(withSvcToml(host.config, result.after));
  host.record({ action: 'settings.update', target: 'svc.toml', actor, details: { changes: { 'models.store': { before, after: dir } } } });
  host.events.publish({ type: 'settings.changed', source: 'settings', message: 'settings changed: models.store', data: { keys: ['models.store'] } });
}
