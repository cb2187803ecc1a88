// What a start runs, prepared before any process exists: the engine adapter, the model, the
// profile, and the adapter's launch spec (command, argv, env, where it answers). Every
// refusal (no adapter, no model, a bad profile, the port taken) comes from here, before the
// slot's state moves. `svc slot show` previews the same plan without checking the port.
import type { ResolvedConfig, SlotEntry } from '../config/load.js';
import { resolveProfile } from '../config/profiles.js';
import { slotStateDir } from '../config/slot-state-file.js';
import type { EngineAdapter, LaunchSpec } from '../engines/types.js';
import { storeOf } from '../config/model-store.js';
import { portFreeWithin } from '../lib/process.js';
import { SlotError } from '../protocol/errors.js';
import { SLOT_PORT_MAX, SLOT_PORT_MIN } from '../protocol/vocabulary.js';
import { resolveSlotModel } from './model.js';
import { own } from '../lib/own.js';

/** How long a start waits for its port to be released (an engine just stopped; see portFreeWithin). */
const PORT_GRACE_MS = 1_500;

export interface StartPlan {
  spec: LaunchSpec;
  engine: EngineAdapter;
  modelId: string;
  loadTimeoutMs: number;
}

export interface StartPlanInput {
  entry: SlotEntry;
  config: ResolvedConfig;
  engine: EngineAdapter | undefined;
  /** A model given by load or swap without persisting, in place of [model].default. */
  modelOverride?: string;
  /** False for a preview: nothing will listen. */
  checkPort: boolean;
}

export async function planStart({ entry, config, engine, modelOverride, checkPort }: StartPlanInput): Promise<StartPlan> {
  const { slot } = entry.config;
  if (!engine) throw new SlotError('slot.config_error', `slot ${entry.name}: provider ${slot.provider} has no engine adapter yet`, { slot: entry.name, provider: slot.provider });
  const model = await resolveSlotModel(entry, config.registry, modelOverride, engine);
  const profile = resolveProfile(slot, own(config.registry.models, model.id)?.defaults.profile, config.profiles.profiles);
  if ('error' in profile) throw new SlotError('slot.config_error', `slot ${entry.name}: ${profile.error}`, { slot: entry.name });
  if (checkPort && !(await portFreeWithin(slot.port, PORT_GRACE_MS))) {
    throw new SlotError('slot.port_in_use', `slot ${entry.name}: port ${slot.port} is already in use by another process; stop that process, or move the slot to a free port: svc slot edit ${entry.name} --port <port> (${SLOT_PORT_MIN}-${SLOT_PORT_MAX}; svc doctor names who holds ${slot.port})`, { slot: entry.name, port: slot.port });
  }
  const spec = await engine.launch({
    slot: entry,
    model,
    profile,
    svc: config.svc,
    stateDir: slotStateDir(config.paths.stateRoot, entry.name),
    baseEnv: process.env,
    modelStore: storeOf(config),
  });
  return { spec, engine, modelId: model.id, loadTimeoutMs: slot.load_timeout_s * 1000 };
}
