// Which model a slot loads. Engines that load a model file (llama-server): [model].path when
// set, else the registry entry for [model].default; the file must exist. Engines that name
// their model by id (flm, moonshine, kokoro, qwen3tts, comfyui: EngineAdapter.defaultModelId):
// the id is [model].default, else the engine's default id; no registry entry is needed, but
// a file named by [model].path or a registry entry must exist, since the engine is told to
// load it. Problems are slot.model_missing errors that say what to do. The files are looked
// for asynchronously: a cold start resolves the model on a request's path.
import { access } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { SlotEntry } from '../config/load.js';
import type { RegistryFile } from '../config/schema/registry.js';
import type { EngineAdapter, ResolvedModel } from '../engines/types.js';
import { SlotError } from '../protocol/errors.js';
import { own } from '../lib/own.js';

type ModelEngine = Pick<EngineAdapter, 'defaultModelId' | 'loadsNoModel'>;

/** What a slot whose engine loads no model (an RPC worker) runs with. */
const NO_MODEL: ResolvedModel = { id: '', path: '', mmproj: null, tags: [], contextLength: null };

/** The model id a slot serves before it runs: the override, [model].default, else the engine's default ('' = none). */
export function slotModelId(slot: SlotEntry, engine: ModelEngine | undefined, overrideId?: string): string {
  const { model } = slot.config;
  return overrideId ?? (model.default || engine?.defaultModelId?.(slot.config) || (model.path ? pathModelId(model.path) : ''));
}

/**
 * The id of a slot's `[model].path` model that has no registry id: its file name. The same
 * before the slot starts (routing, views) as while it runs (resolveSlotModel), so a request
 * that arrives during a start is forwarded with the id the next one gets.
 */
const pathModelId = (path: string) => basename(path, extname(path));

export async function resolveSlotModel(slot: SlotEntry, registry: RegistryFile, overrideId?: string, engine?: ModelEngine): Promise<ResolvedModel> {
  if (engine?.loadsNoModel) return NO_MODEL;
  if (engine?.defaultModelId) return resolveById(slot, registry, slotModelId(slot, engine, overrideId));
  const { model } = slot.config;
  const id = overrideId ?? model.default;
  if (!overrideId && model.path) {
    if (!(await exists(model.path))) throw missing(slot.name, `its [model].path ${model.path} does not exist`);
    return { id: id || pathModelId(model.path), path: model.path, mmproj: null, tags: [], contextLength: null };
  }
  if (!id) throw missing(slot.name, `it has no model; set one with \`svc model assign <id> --slot ${slot.name}\``);
  const entry = own(registry.models, id);
  if (!entry) throw missing(slot.name, `its model "${id}" is not in the registry; register it with \`svc model register ${id} --path <file>\``, { model: id });
  if (!(await exists(entry.path))) throw missing(slot.name, `the file of model "${id}" is gone: ${entry.path}`, { model: id, path: entry.path });
  return { id, path: entry.path, mmproj: entry.mmproj, tags: entry.tags, contextLength: entry.metadata.context_length };
}

async function resolveById(slot: SlotEntry, registry: RegistryFile, id: string): Promise<ResolvedModel> {
  if (!id) throw missing(slot.name, `its ${slot.config.slot.provider} engine has no default model; set [model].default in slots/${slot.name}.toml`);
  const { path } = slot.config.model;
  const entry = own(registry.models, id);
  const file = path ?? entry?.path ?? '';
  if (file && !(await exists(file))) throw missing(slot.name, `the model files of "${id}" are gone: ${file}`, { model: id, path: file });
  return { id, path: file, mmproj: null, tags: entry?.tags ?? [], contextLength: entry?.metadata.context_length ?? null };
}

function missing(slot: string, why: string, details: Record<string, unknown> = {}): SlotError {
  return new SlotError('slot.model_missing', `slot ${slot} cannot start: ${why}`, { slot, ...details });
}

/** Whether anything is at `path`, as existsSync said (a dangling link or no access: no). */
const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);
