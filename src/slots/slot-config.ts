// Changes to slot files: create, edit, delete, and persisting a slot's default model. Every
// change is one step through the config writer queue:
//
//   1. the slot file is written (updateSlotFile: read-modify-write, unknown keys kept,
//      validated on its own and against the other slot files' ports) or removed;
//   2. the whole configuration is loaded again from disk (loadConfig), so the cross-file
//      rules (profiles exist, upstreams/capabilities name existing slots, …) apply;
//   3. only when that load succeeds does the running configuration change. When it fails,
//      the slot file is put back byte for byte as it was (or removed again, for a create)
//      and the change fails with 400 config.invalid listing every problem, including
//      problems in other files that were already broken on disk. A change that leaves two
//      enabled NPU llm slots is put back the same way, as 409 slot.npu_exclusivity_violation
//      (checked on create and update; docs/routing.md, "NPU slots").
//
// So the running configuration and the files on disk never disagree after a slot change,
// and a change is never written that the next `svc serve` would refuse to start with.
// Bodies arrive validated (src/protocol/slot-requests.ts); the rules that need the slot's
// type or the running configuration are here.
import { readFile, rm } from 'node:fs/promises';
import { writeFileAtomic } from '../config/atomic.js';
import type { SlotEntry } from '../config/load.js';
import { loadConfig } from '../config/load.js';
import { npuExclusivityConflicts } from '../config/npu.js';
import { errorsOf, formatProblem, type ConfigProblem } from '../config/problems.js';
import { MODEL_ID_PATTERN } from '../config/schema/registry.js';
import { slotFilePath, updateSlotFile } from '../config/slot-files.js';
import { deepMerge } from '../config/settings.js';
import type { ConfigHolder } from '../config/store.js';
import { readTomlFile, type TomlDoc } from '../config/toml.js';
import { validateDocument } from '../config/validate.js';
import { engineFor as defaultEngineFor } from '../engines/index.js';
import { ggufContextLength } from '../engines/llama-server/adapter.js';
import type { EngineAdapter } from '../engines/types.js';
import type { ModelEntry } from '../config/schema/registry.js';
import { SlotFileSchema, type SlotFile } from '../config/schema/slot.js';
import { resolveModelRef } from '../models/service.js';
import { ConfigError, RequestError, SlotError, SvcError } from '../protocol/errors.js';
import type { FieldProblem } from '../protocol/issues.js';
import { CONTEXT_SLOT_TYPES, DEFAULT_CTX_SIZE, type CreateSlotInput, type EditSlotInput } from '../protocol/slot-requests.js';
import { SLOT_NAME_RULE } from '../protocol/vocabulary.js';
import { checkProvider, chooseDevice, chooseProvider, readDevice, type DeviceChoice } from './slot-choices.js';
import { pickSlotPort } from './ports.js';
import { fileChanges, filePatchProblems, patchedValue, withFilePatch } from './slot-file-patch.js';
import type { SlotSupervisor } from './supervisor.js';
import { own } from '../lib/own.js';

export interface CreatedSlot extends DeviceChoice {
  name: string;
  file: string;
  port: number;
  provider: string;
  provider_reason: string;
  type: string;
  model: string;
  /** null for types without a context window (tts, transcription, image). */
  ctx_size: number | null;
  profile: string | null;
  port_source: 'given' | 'pool';
  /** What will keep the slot from starting, or make it run worse than asked; it is created anyway. */
  warnings: string[];
}

/**
 * Asked inside the writer queue, before a slot file is written, with the slot as it was
 * (undefined for a new one) and as it will be: it throws to refuse the change (the server's
 * host-only policy, for engine input only the host may set).
 */
export type SlotChangeCheck = (before: SlotFile | undefined, after: SlotFile) => Promise<void>;

export interface SlotChange {
  key: string;
  before: unknown;
  after: unknown;
}

export function invalidBody(problems: FieldProblem[]): RequestError {
  return new RequestError('request.invalid', `invalid body: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, { problems });
}

function configInvalid(message: string, problems: readonly ConfigProblem[]): ConfigError {
  const errors = errorsOf(problems);
  return new ConfigError('config.invalid', `${message}: ${errors.map(formatProblem).join('; ')}`, {
    problems: errors.map(({ file, path, message: m }) => ({ file, path, message: m })),
  });
}

export class SlotConfigService {
  constructor(
    private readonly store: ConfigHolder,
    private readonly supervisor: SlotSupervisor,
    private readonly engineFor: (provider: string) => EngineAdapter | undefined = defaultEngineFor,
  ) {}

  /** The running config's entry for a slot; slot.not_found otherwise. */
  entry(name: string): SlotEntry {
    const entry = this.store.config.slots.find((s) => s.name === name);
    if (!entry) throw new SlotError('slot.not_found', `no slot named ${name}`, { slot: name });
    return entry;
  }

  /** A registry model id (or exact display name) → its id; model.not_found (404) otherwise. */
  modelIdFor(ref: string): string {
    return resolveModelRef(this.store.config.registry, ref);
  }

  /** Validate the cross-field rules, pick a port, write slots/<name>.toml, reload; then say what will keep it from starting. */
  async create(input: CreateSlotInput, check?: SlotChangeCheck): Promise<CreatedSlot> {
    const type = input.type ?? 'llm';
    const problems: FieldProblem[] = [];
    const impliedProvider = checkProvider(type, input.provider, problems);
    const device = readDevice(input, problems);
    problems.push(...filePatchProblems(input.name, input.file));
    if (problems.length > 0) throw invalidBody(problems);
    const choice = await chooseDevice(this.store.paths, device);
    const { provider, reason } = input.provider !== undefined
      ? { provider: input.provider, reason: 'given' }
      : await chooseProvider(type, choice.device, this.store.config.svc.engines, process.env);
    const model = this.slotModelFor(impliedProvider ?? provider, input.model);
    const warnings: string[] = [];
    const hasContext = CONTEXT_SLOT_TYPES.includes(type);
    if (!hasContext && input.ctx_size !== undefined) warnings.push(`ctx_size is not used by ${type} slots; it was not written`);
    const ctxSize = hasContext ? (input.ctx_size ?? DEFAULT_CTX_SIZE) : null;
    const profile = input.profile ?? null;
    const { name } = input;
    const created = await this.commit(name, async (path) => {
      // Checked inside the queue, so two creates of one name cannot both pass.
      const exists = this.store.config.slots.some((s) => s.name === name) || (await readFile(path).then(() => true, () => false));
      if (exists) throw new SlotError('slot.already_exists', `slot ${name} already exists (slots/${name}.toml); edit it with \`svc slot edit ${name}\` or delete it first`, { slot: name, file: `slots/${name}.toml` });
      // A port in `file` is as given as `port`: the pool is not asked.
      const filePort = patchedValue(input.file, 'slot', 'port');
      const port = input.port ?? (filePort === undefined ? await pickSlotPort(this.store.config) : undefined);
      const slot: TomlDoc = { name, ...(port !== undefined && { port }), type, device: choice.device, provider: impliedProvider ?? provider };
      if (profile !== null) slot.profile = profile;
      const server = serverTable(input.extra_args, input.env);
      const base = { slot, model: { default: model, ...(ctxSize !== null && { context_size: ctxSize }) }, ...(Object.keys(server).length > 0 && { server }) };
      // `file` is merged last, as into an existing file: a null there only means "not set".
      const doc = input.file === undefined ? base : deepMerge(base, withFilePatch({}, input.file));
      const parsed = validateDocument(SlotFileSchema, doc, `slots/${name}.toml`).value;
      if (check && parsed) await check(undefined, parsed);
      await this.write(name, doc);
      // What was written (the write validated it, so `parsed` is there).
      const written = parsed!;
      const writtenCtx = CONTEXT_SLOT_TYPES.includes(written.slot.type) ? written.model.context_size : null;
      return {
        name, file: `slots/${name}.toml`, port: written.slot.port, provider: written.slot.provider, provider_reason: reason, type: written.slot.type, model: written.model.default, ctx_size: writtenCtx,
        profile: written.slot.profile, port_source: input.port === undefined && filePort === undefined ? 'pool' as const : 'given' as const, ...choice, warnings,
      };
    });
    warnings.push(...(await this.startWarnings(name, created.model, created.ctx_size)));
    return created;
  }

  /** Why a slot as written cannot start (no engine binary, no model file, ...), and a context above the model's own. */
  private async startWarnings(name: string, model: string, ctxSize: number | null): Promise<string[]> {
    const warnings: string[] = [];
    try {
      await this.supervisor.preview(name);
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      warnings.push(`it cannot start as configured (${error.code}): ${error.message}`);
    }
    const native = await nativeContextOf(own(this.store.config.registry.models, model));
    if (ctxSize !== null && native !== null && ctxSize > native) {
      warnings.push(`context size ${ctxSize} is above the native context of ${model} (${native} tokens): the model was not trained for longer contexts and answers degrade past it; \`svc slot edit ${name} --ctx-size ${native}\` sets it to the native size`);
    }
    return warnings;
  }

  /** Change model, port, context size, provider, device, profile, extra args, environment, enabled; returns what changed. */
  async edit(name: string, input: EditSlotInput, check?: SlotChangeCheck): Promise<SlotChange[]> {
    const entry = this.entry(name);
    const problems: FieldProblem[] = [];
    const provider = input.provider === undefined ? undefined : checkProvider(entry.config.slot.type, input.provider, problems);
    const { device } = readDevice(input, problems);
    if (problems.length > 0) throw invalidBody(problems);
    const model = input.model === undefined ? undefined : this.slotModelFor(provider ?? entry.config.slot.provider, input.model);

    const { slot: s, model: m, server: sv } = entry.config;
    const changes: SlotChange[] = [];
    const slotPatch: TomlDoc = {};
    const modelPatch: TomlDoc = {};
    const serverPatch: TomlDoc = {};
    const set = (table: TomlDoc, section: string, key: string, before: unknown, after: unknown) => {
      if (after === undefined || after === before) return;
      table[key] = after;
      changes.push({ key: `${section}.${key}`, before, after });
    };
    set(slotPatch, 'slot', 'port', s.port, input.port);
    set(slotPatch, 'slot', 'provider', s.provider, provider);
    set(slotPatch, 'slot', 'device', s.device, device);
    set(slotPatch, 'slot', 'profile', s.profile, input.profile);
    set(slotPatch, 'slot', 'enabled', s.enabled, input.enabled);
    // "" and {} clear: the file then has no key at all (null removes it).
    const extra = input.extra_args === undefined ? undefined : input.extra_args || null;
    if (extra !== undefined && extra !== sv.extra_args) { serverPatch.extra_args = extra; changes.push({ key: 'server.extra_args', before: sv.extra_args, after: extra }); }
    const env = input.env === undefined ? undefined : Object.keys(input.env).length > 0 ? input.env : null;
    if (env !== undefined && JSON.stringify(env) !== JSON.stringify(sv.env)) {
      // A patch merges tables: the keys the new map drops are nulled (removed), so it replaces the old one.
      serverPatch.env = env === null ? null : { ...Object.fromEntries(Object.keys(sv.env ?? {}).map((key) => [key, null])), ...env };
      changes.push({ key: 'server.env', before: sv.env, after: env });
    }
    set(modelPatch, 'model', 'default', m.default, model);
    set(modelPatch, 'model', 'context_size', m.context_size, input.ctx_size);
    // A registry model replaces a direct [model].path (which would otherwise win).
    if (model !== undefined && m.path !== null) {
      modelPatch.path = null;
      changes.push({ key: 'model.path', before: m.path, after: null });
    }
    const patch = {
      ...(Object.keys(slotPatch).length > 0 && { slot: slotPatch }),
      ...(Object.keys(modelPatch).length > 0 && { model: modelPatch }),
      ...(Object.keys(serverPatch).length > 0 && { server: serverPatch }),
    };
    if (input.file !== undefined) return this.editFile(entry, withFilePatch(patch, input.file), check, filePatchProblems(name, input.file));
    if (changes.length === 0) return changes;
    const after = { ...entry.config, slot: { ...s, ...slotPatch }, server: { ...sv, ...(extra !== undefined && { extra_args: extra }), ...(env !== undefined && { env }) } } as SlotFile;
    await this.commit(name, async () => {
      await check?.(entry.config, after);
      await this.write(name, patch);
    });
    if (model !== undefined) this.supervisor.clearModelOverride(name);
    return changes;
  }

  /**
   * An edit with `file`: the fields' patch with the file's laid over it, merged into the raw
   * file and validated as a whole; the host-only check sees the whole merged file, so a key
   * that arrives through `file` is judged exactly as the same key through its own field.
   */
  private async editFile(entry: SlotEntry, patch: TomlDoc, check: SlotChangeCheck | undefined, problems: FieldProblem[]): Promise<SlotChange[]> {
    if (problems.length > 0) throw invalidBody(problems);
    const { name } = entry;
    const changes = await this.commit(name, async (path) => {
      const read = await readTomlFile(path, entry.file);
      const raw = read.status === 'ok' ? read.doc : {};
      const merged = deepMerge(raw, patch);
      if (read.status === 'ok' && JSON.stringify(merged) === JSON.stringify(raw)) return [];
      const after = validateDocument(SlotFileSchema, merged, entry.file).value;
      // An invalid result is refused by the write with every problem; there is nothing to judge.
      if (after) await check?.(entry.config, after);
      await this.write(name, patch);
      return fileChanges(entry.config, after!);
    });
    if (changes.some((change) => change.key === 'model.default' || change.key === 'model.path')) this.supervisor.clearModelOverride(name);
    return changes;
  }

  /** Persist [model].default (clearing a direct [model].path); returns the previous default. */
  async persistDefaultModel(name: string, model: string): Promise<string> {
    const before = this.entry(name).config.model.default;
    await this.commit(name, () => this.write(name, { model: { default: model, path: null } }));
    this.supervisor.clearModelOverride(name);
    return before;
  }

  /** Remove the slot file and reload (the caller reconciles the supervisor, which stops the engine). */
  async remove(name: string): Promise<string> {
    this.entry(name);
    await this.commit(name, (path) => rm(path));
    return `slots/${name}.toml`;
  }

  /**
   * The model of a slot: a registry id or name; for an engine that names its model by id
   * (kokoro, moonshine, flm, ...; EngineAdapter.defaultModelId) also an id the registry does
   * not know, such as an FLM tag (llama3.2:1b) or `kokoro`, as long as it is a valid id.
   */
  private slotModelFor(provider: string, ref: string): string {
    try {
      return this.modelIdFor(ref);
    } catch (error) {
      if (!this.engineFor(provider)?.defaultModelId || !MODEL_ID_PATTERN.test(ref)) throw error;
      return ref;
    }
  }

  /** updateSlotFile, with its problems as config.invalid. */
  private async write(name: string, patch: TomlDoc): Promise<void> {
    const result = await updateSlotFile(this.store.paths, name, patch);
    if (!result.ok) throw configInvalid(`slots/${name}.toml not changed`, result.problems);
  }

  /** Run a slot-file change and reload everything inside the writer queue; put the file back when the reload fails. */
  private async commit<T>(name: string, change: (path: string) => Promise<T>): Promise<T> {
    const path = slotFilePath(this.store.paths, name);
    if (!path) throw invalidBody([{ path: 'name', message: `expected a slot name: ${SLOT_NAME_RULE}; got ${JSON.stringify(name)}` }]);
    return this.store.configWrites.run(async () => {
      const before = await readFile(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
      const result = await change(path);
      const outcome = await loadConfig(this.store.paths);
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
      this.store.replaceConfig(outcome.config);
      return result;
    });
  }
}

/** The [server] table of a new slot: only what was given (empty strings and maps are nothing). */
function serverTable(extraArgs: string | undefined, env: Record<string, string> | undefined): TomlDoc {
  return { ...(extraArgs && { extra_args: extraArgs }), ...(env && Object.keys(env).length > 0 && { env }) };
}

/** A registry model's native context: the registry's record, else the GGUF header; null when unknown. */
async function nativeContextOf(entry: ModelEntry | undefined): Promise<number | null> {
  if (!entry) return null;
  return entry.metadata.context_length ?? (entry.path ? await ggufContextLength(entry.path) : null);
}
