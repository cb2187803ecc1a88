// Which model file a slot loads: [model].path when set, else the registry entry for
// [model].default. Problems are slot.model_missing errors that say what to do.
import { existsSync } from 'node:fs';
import { basename, extname } from 'node:path';
import type { SlotEntry } from '../config/load.js';
import type { RegistryFile } from '../config/schema/registry.js';
import type { ResolvedModel } from '../engines/types.js';
import { SlotError } from '../protocol/errors.js';

export function resolveSlotModel(slot: SlotEntry, registry: RegistryFile, overrideId?: string): ResolvedModel {
  const { model } = slot.config;
  const id = overrideId ?? model.default;
  if (!overrideId && model.path) {
    if (!existsSync(model.path)) throw missing(slot.name, `its [model].path ${model.path} does not exist`);
    return { id: id || basename(model.path, extname(model.path)), path: model.path, mmproj: null, tags: [], contextLength: null };
  }
  if (!id) throw missing(slot.name, `it has no model; set one with \`svc model assign <id> --slot ${slot.name}\``);
  const entry = registry.models[id];
  if (!entry) throw missing(slot.name, `its model "${id}" is not in the registry; register it with \`svc model register ${id} --path <file>\``, { model: id });
  if (!existsSync(entry.path)) throw missing(slot.name, `the file of model "${id}" is gone: ${entry.path}`, { model: id, path: entry.path });
  return { id, path: entry.path, mmproj: entry.mmproj, tags: entry.tags, contextLength: entry.metadata.context_length };
}

function missing(slot: string, why: string, details: Record<string, unknown> = {}): SlotError {
  return new SlotError('slot.model_missing', `slot ${slot} cannot start: ${why}`, { slot, ...details });
}
