// Request bodies of /api/slots and /api/install/slots (docs/api.md, "Slots"), as zod schemas
// the server validates with (parseRequest) and the CLI builds from, plus the limits both
// sides share. Cross-field rules (hardware vs device, the comfyui provider) are the slot
// service's: they need the slot's type or the running configuration.
import { z } from 'zod';
import { HARDWARE_FLAGS } from './hardware.js';
import { MAX_CTX_SIZE, MIN_CTX_SIZE } from './slot-limits.js';
import { DEVICES, PROVIDERS, SLOT_NAME_PATTERN, SLOT_NAME_RULE, SLOT_PORT_MAX, SLOT_PORT_MIN, SLOT_TYPES, type SlotType } from './vocabulary.js';
import { NUL_REFUSED } from './input-bounds.js';
import { nulFreeString } from './no-nul.js';

export { DEFAULT_CTX_SIZE, DEFAULT_LOG_LINES, LOG_RING_LINES, MAX_CTX_SIZE, MIN_CTX_SIZE } from './slot-limits.js';
/** Slot types whose engine has a context window; the others (speech, images) take no ctx_size. */
export const CONTEXT_SLOT_TYPES: readonly SlotType[] = ['llm', 'embedding', 'reranking'];

const text = () => z.string().min(1);
// null reads as "not given": a form that sends every field sends nulls for the empty ones.
const maybe = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);
/** A port number; the slot file then holds a slot's to SLOT_PORT_MIN-SLOT_PORT_MAX (a config.invalid past that). */
const PORT_RULE = `expected a port number, and a slot's port is ${SLOT_PORT_MIN}-${SLOT_PORT_MAX}`;
const port = () => z.int().min(1, { error: PORT_RULE }).max(65535, { error: PORT_RULE });
/** [server].extra_args: "" clears them. */
const extraArgs = () => nulFreeString().max(4096).nullish().transform((v) => v ?? undefined);
/** [server].env: {} clears it; names as the slot file's rule, values without newlines. */
const engineEnv = () => z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'expected an environment variable name matching [A-Za-z_][A-Za-z0-9_]*' }), z.string().regex(/^[^\r\n]*$/, { message: 'expected a value without newlines' }).refine((v) => !v.includes('\u0000'), { message: NUL_REFUSED }))
  .nullish().transform((v) => v ?? undefined);
const ctxSize = () => z.int().min(MIN_CTX_SIZE).max(MAX_CTX_SIZE);

/** The tables of a slot file (docs/configuration.md, "Slot files"). */
export const SLOT_FILE_SECTIONS = ['slot', 'model', 'server', 'npu', 'image'] as const;
const fileTable = () => z.record(z.string(), z.unknown()).optional();
/**
 * `file`: a partial slot file, deep-merged into the slot's file (a null removes that key).
 * Only its shape is checked here; its values are checked by the slot service with the slot
 * file's own schema, on the merged file, exactly as a file on disk is (src/slots/slot-file-patch.ts).
 */
export const SlotFilePatchSchema = z.strictObject({ slot: fileTable(), model: fileTable(), server: fileTable(), npu: fileTable(), image: fileTable() });
export type SlotFilePatch = z.output<typeof SlotFilePatchSchema>;

/** POST /api/slots. */
export const CreateSlotRequestSchema = z.strictObject({
  name: z.string().regex(SLOT_NAME_PATTERN, { message: `expected a slot name: ${SLOT_NAME_RULE}` }),
  /** A registry model id or name (or, for engines that name their model by id, that id). */
  model: text(),
  type: maybe(z.enum(SLOT_TYPES)),
  /** Default: llama-server when a binary is found, else the built-in engine where it serves the type. */
  provider: maybe(z.enum(PROVIDERS)),
  /** vulkan | rocm | cuda | cpu; default from hardware.json, else vulkan. */
  hardware: maybe(z.enum(HARDWARE_FLAGS)),
  /** A device value (gpu-rocm, gpu-vulkan, gpu-cuda, cpu, npu); wins over hardware. */
  device: maybe(z.enum(DEVICES)),
  /** Default: the first free port of [slots].port_range_start..port_range_end. */
  port: maybe(port()),
  /** llm, embedding and reranking slots: default 4096, at least 128; other types take none. */
  ctx_size: maybe(ctxSize()),
  profile: maybe(text()),
  /** Engine flags applied last; host-only flags need this host or an admin (docs/auth.md). */
  extra_args: extraArgs(),
  /** Extra engine environment; a name beyond the device and thread allowlist (protocol/host-only.ts LAN_ENV) needs this host or an admin. */
  env: engineEnv(),
  /** Any other key of the slot file (workers, timeouts, [model].path, [npu], [image], …), merged last. */
  file: SlotFilePatchSchema.optional(),
});
export type CreateSlotRequest = z.input<typeof CreateSlotRequestSchema>;
export type CreateSlotInput = z.output<typeof CreateSlotRequestSchema>;

const EDITABLE = ['model', 'port', 'ctx_size', 'provider', 'hardware', 'device', 'profile', 'extra_args', 'env', 'enabled', 'file'] as const;

/** PUT /api/slots/<name>: at least one field. */
export const EditSlotRequestSchema = z.strictObject({
  model: maybe(text()),
  port: maybe(port()),
  ctx_size: maybe(ctxSize()),
  provider: maybe(z.enum(PROVIDERS)),
  hardware: maybe(z.enum(HARDWARE_FLAGS)),
  device: maybe(z.enum(DEVICES)),
  profile: maybe(text()),
  extra_args: extraArgs(),
  env: engineEnv(),
  /** [slot].enabled: false keeps the slot from starting (at boot or on demand); a running engine runs on until unloaded. */
  enabled: maybe(z.boolean()),
  /** A partial slot file merged into the file after the fields above (a null removes a key); `slot.name` cannot change. */
  file: SlotFilePatchSchema.optional(),
}).refine((body) => EDITABLE.some((key) => body[key] !== undefined), { message: `nothing to change: give at least one of ${EDITABLE.join(', ')}` });
export type EditSlotRequest = z.input<typeof EditSlotRequestSchema>;
export type EditSlotInput = z.output<typeof EditSlotRequestSchema>;

/** POST /api/slots/<name>/load (the body is optional). */
export const LoadSlotRequestSchema = z.strictObject({ model: maybe(text()) });

/** POST /api/slots/<name>/swap. */
export const SwapSlotRequestSchema = z.strictObject({ model: text(), persist: maybe(z.boolean()) });

/** PUT /api/install/slots/<name>/model. */
export const AssignSlotModelRequestSchema = z.strictObject({ model: text() });
