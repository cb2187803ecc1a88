// The host-only policy for slot files written over HTTP (slot create and edit, stack apply):
// what the change adds to the slot's engine input (engines/engine-input.ts) that only this
// host or an admin may add, asked inside the writer queue before anything is written.
import { resolveProfile } from '../config/profiles.js';
import type { SlotFile } from '../config/schema/slot.js';
import { hostOnlySlotChanges, type SlotEngineInput } from '../engines/engine-input.js';
import { chatTemplateIsPath } from '../engines/llama-server/argv.js';
import { MODEL_ID_PATTERN } from '../protocol/model-ids.js';
import type { SlotChangeCheck } from '../slots/slot-config.js';
import type { FastifyRequest } from 'fastify';
import type { ServerContext } from './context.js';
import { requireHostAuthority } from './host-authority.js';
import { own } from '../lib/own.js';

/** A slot file's engine input under the running configuration (its profile resolved as a start would). */
export function slotEngineInput(ctx: ServerContext, file: SlotFile): SlotEngineInput {
  const preferred = own(ctx.config.registry.models, file.model.default)?.defaults.profile;
  const choice = resolveProfile(file.slot, preferred, ctx.config.profiles.profiles);
  return { provider: file.slot.provider, profile: 'error' in choice ? null : choice.profile, extraArgs: file.server.extra_args, env: file.server.env };
}

/**
 * The host files a slot file itself names: [model].path (a model file handed to the engine,
 * as POST /api/models `path` is) and a [slot].chat_template that is a path (read by the
 * engine as --chat-template-file). Setting either to a new file is host-only; clearing is not.
 */
function namedFiles(file: SlotFile): Record<string, string | null> {
  const template = file.slot.chat_template;
  return { 'model.path': file.model.path, 'slot.chat_template': template !== null && chatTemplateIsPath(template) ? template : null };
}

/**
 * [model].default outside the model id grammar. An engine that names its model by id gets the
 * id on its command line (`flm serve <id>`), so "--flag" there would be a flag no dialect
 * judged; every id svc writes (registry ids, engine model ids) has the grammar.
 */
export const unlikeAModelId = (id: string) => id !== '' && !MODEL_ID_PATTERN.test(id);

/** The host-only keys a change of slot `name` adds, as "slots.<name> <where> <arg>". */
export function slotHostOnlyKeys(ctx: ServerContext, name: string, before: SlotFile | undefined, after: SlotFile): string[] {
  const engine = hostOnlySlotChanges(before && slotEngineInput(ctx, before), slotEngineInput(ctx, after));
  const was = before ? namedFiles(before) : {};
  const files = Object.entries(namedFiles(after)).filter(([key, value]) => value !== null && value !== was[key]).map(([key, value]) => `${key} ${value}`);
  // An RPC worker receives the model's weights and runs its layers: adding one names a host the model is sent to.
  const workers = after.slot.rpc_workers.filter((worker) => !(before?.slot.rpc_workers ?? []).includes(worker)).map((worker) => `slot.rpc_workers ${worker}`);
  const { default: id } = after.model;
  const model = unlikeAModelId(id) && id !== before?.model.default ? [`model.default ${id}`] : [];
  return [...engine, ...files, ...workers, ...model].map((key) => `slots.${name} ${key}`);
}

/** The check a slot-file change over HTTP passes (slots/slot-config.ts SlotChangeCheck). */
export function slotChangeCheck(ctx: ServerContext, request: FastifyRequest, action: string, name: string): SlotChangeCheck {
  return async (before, after) => {
    const keys = slotHostOnlyKeys(ctx, name, before, after);
    await requireHostAuthority(ctx, request, action, name, keys, `slot ${name} would get engine input that names a file, a host or code, or an environment variable beyond device lists and thread counts`);
  };
}
