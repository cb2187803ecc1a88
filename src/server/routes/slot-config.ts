// Changes to slot files from the slot API: create, edit, delete, and persisting a slot's
// default model. Every change is one step through the config writer queue:
//
//   1. the slot file is written (updateSlotFile: read-modify-write, unknown keys kept,
//      validated on its own and against the other slot files' ports) or removed;
//   2. the whole configuration is loaded again from disk (loadConfig), so the cross-file
//      rules (profiles exist, upstreams/capabilities name existing slots, …) apply;
//   3. only when that load succeeds does the running configuration change. When it fails,
//      the slot file is put back byte for byte as it was (or removed again, for a create)
//      and the request fails with 400 config.invalid listing every problem, including
//      problems in other files that were already broken on disk. A change that leaves two
//      enabled NPU llm slots is put back the same way, as 409 slot.npu_exclusivity_violation
//      (REFERENCE.md §4: checked on create and update).
//
// So the running configuration and the files on disk never disagree after a slot change,
// and a change is never written that the next `svc serve` would refuse to start with.
// (A side effect: a full reload also picks up other files edited by hand since the last
// load, as POST /api/settings/reload would.)
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/atomic.js';
import type { SvcPaths } from '../../config/paths.js';
import { loadConfig, type SlotEntry } from '../../config/load.js';
import { npuExclusivityConflicts } from '../../config/npu.js';
import { errorsOf, formatProblem, type ConfigProblem } from '../../config/problems.js';
import { DEVICES, PROVIDERS, SLOT_NAME_PATTERN, SLOT_NAME_RULE, SLOT_TYPES } from '../../config/schema/common.js';
import { slotFilePath, updateSlotFile } from '../../config/slot-files.js';
import { readTomlFile, type TomlDoc } from '../../config/toml.js';
import { MODEL_ID_PATTERN } from '../../config/schema/registry.js';
import { engineFor } from '../../engines/index.js';
import { readHardwareJson } from '../../host/hardware.js';
import { resolveModelRef } from '../../models/service.js';
import { ConfigError, RequestError, SlotError } from '../../protocol/errors.js';
import { defaultHardware, HARDWARE_DEVICE, HARDWARE_FLAGS, type HardwareFlag } from '../../protocol/hardware.js';
import type { CreateSlotRequest, EditSlotRequest } from '../../protocol/slots.js';
import { portIsFree } from '../../slots/process.js';
import type { ServerContext } from '../context.js';

export const DEFAULT_CTX_SIZE = 4096;
export const MIN_CTX_SIZE = 128;

/** The provider of image slots; it is implied by type=image and never given on its own. */
const IMAGE_PROVIDER = 'comfyui';

interface Problem {
  path: string;
  message: string;
}

function invalid(problems: Problem[]): RequestError {
  return new RequestError('request.invalid', `invalid body: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, { problems });
}

/** Field readers that collect every problem of a body before failing. */
class BodyReader {
  readonly problems: Problem[] = [];

  constructor(private readonly body: Record<string, unknown>, private readonly known: readonly string[]) {
    for (const key of Object.keys(body)) {
      if (!known.includes(key)) this.problems.push({ path: key, message: `unknown field; expected ${known.join(', ')}` });
    }
  }

  string(key: string, required = false): string | undefined {
    const value = this.body[key];
    if (value === undefined || value === null) {
      if (required) this.problems.push({ path: key, message: 'required (a string)' });
      return undefined;
    }
    if (typeof value !== 'string' || value.length === 0) {
      this.problems.push({ path: key, message: `expected a non-empty string; got ${JSON.stringify(value)}` });
      return undefined;
    }
    return value;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], hint = ''): T | undefined {
    const value = this.string(key);
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push({ path: key, message: `expected one of ${allowed.join(', ')}; got ${JSON.stringify(value)}${hint}` });
      return undefined;
    }
    return value as T;
  }

  int(key: string, min: number, max: number): number | undefined {
    const value = this.body[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.problems.push({ path: key, message: `expected an integer ${min}-${max}; got ${JSON.stringify(value)}` });
      return undefined;
    }
    return value;
  }

  boolean(key: string): boolean | undefined {
    const value = this.body[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') {
      this.problems.push({ path: key, message: `expected true or false; got ${JSON.stringify(value)}` });
      return undefined;
    }
    return value;
  }

  done(): void {
    if (this.problems.length > 0) throw invalid(this.problems);
  }
}

export function readBody(body: Record<string, unknown>, known: readonly string[]): BodyReader {
  return new BodyReader(body, known);
}

/** A registry model id (or exact display name) → its id; model.not_found (404) otherwise. */
export function modelIdFor(ctx: ServerContext, ref: string): string {
  return resolveModelRef(ctx.config.registry, ref);
}

/**
 * The model of a new slot: a registry id or name; for an engine that names its model by id
 * (kokoro, moonshine, flm, ...; EngineAdapter.defaultModelId) also an id the registry does
 * not know, such as an FLM tag (llama3.2:1b) or `kokoro`, as long as it is a valid id.
 */
function slotModelFor(ctx: ServerContext, provider: string, ref: string): string {
  try {
    return modelIdFor(ctx, ref);
  } catch (error) {
    if (!engineFor(provider)?.defaultModelId || !MODEL_ID_PATTERN.test(ref)) throw error;
    return ref;
  }
}

/** The running config's entry for a slot; slot.not_found otherwise. */
export function slotEntry(ctx: ServerContext, name: string): SlotEntry {
  const entry = ctx.config.slots.find((s) => s.name === name);
  if (!entry) throw new SlotError('slot.not_found', `no slot named ${name}`, { slot: name });
  return entry;
}

/** Providers `slot create --provider` accepts: every engine but comfyui, which type=image implies. */
export const CREATE_PROVIDERS = PROVIDERS.filter((p) => p !== IMAGE_PROVIDER);

/**
 * The engine of a new slot that names none: the one made for its type and device (image →
 * comfyui, npu → flm, tts → kokoro on cpu else qwen3tts, transcription → moonshine), else
 * llama-server. llama-server would refuse those types at their first start.
 */
export function defaultProvider(type: string, device: string): string {
  if (type === 'image') return IMAGE_PROVIDER;
  if (device === 'npu') return 'flm';
  if (type === 'tts') return device === 'cpu' ? 'kokoro' : 'qwen3tts';
  if (type === 'transcription') return 'moonshine';
  return 'llama-server';
}

/** The provider rule of the spec's CLI table: comfyui is never named; image slots get it from their type. */
function checkProvider(type: string, provider: string | undefined, problems: Problem[]): string | undefined {
  if (type === 'image') {
    if (provider !== undefined && provider !== IMAGE_PROVIDER) {
      problems.push({ path: 'provider', message: `image slots always run on ${IMAGE_PROVIDER}; leave provider out (got ${JSON.stringify(provider)})` });
    }
    return IMAGE_PROVIDER;
  }
  if (provider === IMAGE_PROVIDER) {
    problems.push({ path: 'provider', message: `"${IMAGE_PROVIDER}" is not accepted: image slots are created with type "image" (svc slot create <name> --type image), which implies it` });
  }
  return provider;
}

function readProvider(reader: BodyReader): string | undefined {
  // comfyui is a known provider, refused with its own message by checkProvider.
  return reader.oneOf('provider', PROVIDERS, ` (accepted: ${CREATE_PROVIDERS.join(', ')})`);
}

/** The device a create/edit asks for: an explicit device wins; else --hardware mapped. */
function readDevice(reader: BodyReader): { device?: string; hardware?: HardwareFlag } {
  const hardware = reader.oneOf('hardware', HARDWARE_FLAGS);
  const device = reader.oneOf('device', DEVICES);
  if (hardware && device && HARDWARE_DEVICE[hardware] !== device) {
    reader.problems.push({ path: 'device', message: `hardware "${hardware}" means device "${HARDWARE_DEVICE[hardware]}", which contradicts device "${device}"; give one of them` });
  }
  return { ...(device !== undefined && { device }), ...(hardware !== undefined && { hardware }) };
}

function configInvalid(message: string, problems: readonly ConfigProblem[]): ConfigError {
  const errors = errorsOf(problems);
  return new ConfigError('config.invalid', `${message}: ${errors.map(formatProblem).join('; ')}`, {
    problems: errors.map(({ file, path, message: m }) => ({ file, path, message: m })),
  });
}

/**
 * Run a slot-file change and reload the whole configuration, all inside the writer queue;
 * on a failed reload put the file back (see the top of this file). The caller reconciles
 * the supervisor afterwards (outside the queue: stopping an engine can take seconds).
 */
async function commitSlotChange<T>(ctx: ServerContext, name: string, change: (path: string) => Promise<T>): Promise<T> {
  const path = slotFilePath(ctx.paths, name);
  if (!path) throw invalid([{ path: 'name', message: `expected a slot name: ${SLOT_NAME_RULE}; got ${JSON.stringify(name)}` }]);
  return ctx.configWrites.run(async () => {
    const before = await readFile(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    const result = await change(path);
    const outcome = await loadConfig(ctx.paths);
    const restore = async () => (before === null ? rm(path, { force: true }) : writeFileAtomic(path, before));
    if (!outcome.ok) {
      await restore();
      throw configInvalid(`slots/${name}.toml not changed: the configuration does not load with this change`, outcome.problems);
    }
    const conflicts = npuExclusivityConflicts(outcome.config.slots.map((e) => e.config.slot), name);
    if (conflicts.length > 0) {
      await restore();
      throw new SlotError('slot.npu_exclusivity_violation', `slots/${name}.toml not changed: the NPU runs one engine, and slot ${conflicts.join(', ')} is already an enabled NPU llm slot`, {
        slot: name,
        conflicting_slots: conflicts,
        hint: `disable or delete ${conflicts.join(', ')} first, or give ${name} another device; NPU embedding and transcription slots may sit beside it`,
      });
    }
    ctx.replaceConfig(outcome.config);
    return result;
  });
}

/** updateSlotFile, with its problems as config.invalid. */
async function writeSlot(paths: SvcPaths, name: string, patch: TomlDoc): Promise<void> {
  const result = await updateSlotFile(paths, name, patch);
  if (!result.ok) throw configInvalid(`slots/${name}.toml not changed`, result.problems);
}

/** Ports of every slot file on disk, valid or not (a broken file still claims its port). */
async function portsOnDisk(paths: SvcPaths): Promise<Set<number>> {
  const ports = new Set<number>();
  let names: string[];
  try {
    names = (await readdir(paths.slotsDir)).filter((n) => n.endsWith('.toml'));
  } catch {
    return ports;
  }
  for (const file of names) {
    const read = await readTomlFile(join(paths.slotsDir, file), `slots/${file}`);
    const port = read.status === 'ok' ? (read.doc.slot as TomlDoc | undefined)?.port : undefined;
    if (typeof port === 'number') ports.add(port);
  }
  return ports;
}

/** The first port of [slots].port_range_start..port_range_end that no slot claims and nothing listens on. */
async function pickPort(ctx: ServerContext): Promise<number> {
  const { port_range_start: start, port_range_end: end } = ctx.config.svc.slots;
  const claimed = await portsOnDisk(ctx.paths);
  for (const slot of ctx.supervisor.list()) claimed.add(slot.port);
  for (let port = start; port <= end; port++) {
    if (!claimed.has(port) && (await portIsFree(port))) return port;
  }
  throw new SlotError('slot.no_free_port', `no free port in the pool ${start}-${end} ([slots].port_range_start/port_range_end): every port is used by a slot file or by another process; pass a port, or widen the pool`, {
    range: [start, end],
    claimed: [...claimed].filter((p) => p >= start && p <= end).sort((a, b) => a - b),
  });
}

export interface CreatedSlot {
  name: string;
  file: string;
  port: number;
  device: string;
  hardware: HardwareFlag | null;
  provider: string;
  type: string;
  model: string;
  ctx_size: number;
  profile: string | null;
  port_source: 'given' | 'pool';
  device_source: 'given' | 'hardware' | 'probe' | 'fallback';
}

/** POST /api/slots: validate, pick a port, write slots/<name>.toml, reload. */
export async function createSlot(ctx: ServerContext, body: Record<string, unknown>): Promise<CreatedSlot> {
  const reader = readBody(body, ['name', 'type', 'provider', 'hardware', 'device', 'model', 'port', 'ctx_size', 'profile'] satisfies Array<keyof CreateSlotRequest>);
  const name = reader.string('name', true);
  if (name !== undefined && !SLOT_NAME_PATTERN.test(name)) reader.problems.push({ path: 'name', message: `expected a slot name: ${SLOT_NAME_RULE}; got ${JSON.stringify(name)}` });
  const type = reader.oneOf('type', SLOT_TYPES) ?? 'llm';
  const givenProvider = checkProvider(type, readProvider(reader), reader.problems);
  const { device: givenDevice, hardware } = readDevice(reader);
  const modelRef = reader.string('model', true);
  const port = reader.int('port', 1, 65535);
  const ctxSize = reader.int('ctx_size', MIN_CTX_SIZE, 10_000_000) ?? DEFAULT_CTX_SIZE;
  const profile = reader.string('profile') ?? null;
  reader.done();

  let device = givenDevice;
  let deviceSource: CreatedSlot['device_source'] = 'given';
  let flag: HardwareFlag | null = hardware ?? null;
  if (device === undefined) {
    if (!flag) {
      const probe = await readHardwareJson(ctx.paths);
      flag = defaultHardware(probe);
      deviceSource = probe ? 'probe' : 'fallback';
    } else {
      deviceSource = 'hardware';
    }
    device = HARDWARE_DEVICE[flag];
  }
  const provider = givenProvider ?? defaultProvider(type, device);
  const model = slotModelFor(ctx, provider, modelRef!);

  return commitSlotChange(ctx, name!, async (path) => {
    // Checked inside the queue, so two creates of one name cannot both pass.
    const exists = ctx.config.slots.some((s) => s.name === name) || (await readFile(path).then(() => true, () => false));
    if (exists) throw new SlotError('slot.already_exists', `slot ${name} already exists (slots/${name}.toml); edit it with \`svc slot edit ${name}\` or delete it first`, { slot: name, file: `slots/${name}.toml` });
    const chosen = port ?? (await pickPort(ctx));
    const slot: TomlDoc = { name: name!, port: chosen, type, device, provider };
    if (profile !== null) slot.profile = profile;
    await writeSlot(ctx.paths, name!, { slot, model: { default: model, context_size: ctxSize } });
    return {
      name: name!,
      file: `slots/${name}.toml`,
      port: chosen,
      device,
      hardware: flag,
      provider,
      type,
      model,
      ctx_size: ctxSize,
      profile,
      port_source: port === undefined ? 'pool' : 'given',
      device_source: deviceSource,
    };
  });
}

export interface SlotChange {
  key: string;
  before: unknown;
  after: unknown;
}

/** PUT /api/slots/<name>: change model, port, context size, provider, device. */
export async function editSlot(ctx: ServerContext, name: string, body: Record<string, unknown>): Promise<SlotChange[]> {
  const entry = slotEntry(ctx, name);
  const reader = readBody(body, ['model', 'port', 'ctx_size', 'provider', 'hardware', 'device'] satisfies Array<keyof EditSlotRequest>);
  const modelRef = reader.string('model');
  const port = reader.int('port', 1, 65535);
  const ctxSize = reader.int('ctx_size', MIN_CTX_SIZE, 10_000_000);
  const providerGiven = readProvider(reader);
  const provider = providerGiven === undefined ? undefined : checkProvider(entry.config.slot.type, providerGiven, reader.problems);
  const { device, hardware } = readDevice(reader);
  if (Object.keys(body).length === 0) reader.problems.push({ path: '', message: 'nothing to change: give at least one of model, port, ctx_size, provider, hardware, device' });
  reader.done();
  const model = modelRef === undefined ? undefined : slotModelFor(ctx, provider ?? entry.config.slot.provider, modelRef);
  const newDevice = device ?? (hardware ? HARDWARE_DEVICE[hardware] : undefined);

  const { slot: s, model: m } = entry.config;
  const changes: SlotChange[] = [];
  const slotPatch: TomlDoc = {};
  const modelPatch: TomlDoc = {};
  const set = (table: TomlDoc, section: string, key: string, before: unknown, after: unknown) => {
    if (after === undefined || after === before) return;
    table[key] = after;
    changes.push({ key: `${section}.${key}`, before, after });
  };
  set(slotPatch, 'slot', 'port', s.port, port);
  set(slotPatch, 'slot', 'provider', s.provider, provider);
  set(slotPatch, 'slot', 'device', s.device, newDevice);
  set(modelPatch, 'model', 'default', m.default, model);
  set(modelPatch, 'model', 'context_size', m.context_size, ctxSize);
  // A registry model replaces a direct [model].path (which would otherwise win).
  if (model !== undefined && m.path !== null) {
    modelPatch.path = null;
    changes.push({ key: 'model.path', before: m.path, after: null });
  }
  if (changes.length === 0) return changes;
  await commitSlotChange(ctx, name, () => writeSlot(ctx.paths, name, { ...(Object.keys(slotPatch).length > 0 && { slot: slotPatch }), ...(Object.keys(modelPatch).length > 0 && { model: modelPatch }) }));
  if (model !== undefined) ctx.supervisor.clearModelOverride(name);
  return changes;
}

/** Persist [model].default (clearing a direct [model].path); returns the previous default. */
export async function persistDefaultModel(ctx: ServerContext, name: string, model: string): Promise<string> {
  const before = slotEntry(ctx, name).config.model.default;
  await commitSlotChange(ctx, name, () => writeSlot(ctx.paths, name, { model: { default: model, path: null } }));
  ctx.supervisor.clearModelOverride(name);
  return before;
}

/** DELETE /api/slots/<name>: remove the slot file and reload (the caller reconciles, which stops the engine). */
export async function removeSlotFile(ctx: ServerContext, name: string): Promise<string> {
  slotEntry(ctx, name);
  await commitSlotChange(ctx, name, (path) => rm(path));
  return `slots/${name}.toml`;
}
