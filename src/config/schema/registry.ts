// registry.toml (state): the model registry, one `[models.<id>]` table per model.
import { z } from 'zod';

import { MODEL_ID_PATTERN } from '../../protocol/model-ids.js';
import { nulFreeString } from '../../protocol/no-nul.js';

export { MODEL_ID_PATTERN, MODEL_ID_RULE } from '../../protocol/model-ids.js';

/** How an entry got into the registry: `svc model register`, the roots scan, or a pull. */
export const MODEL_SOURCES = ['registered', 'scan', 'pull'] as const;
export type ModelSource = (typeof MODEL_SOURCES)[number];

export const ModelEntrySchema = z.strictObject({
  name: z.string().default(''),
  path: z.string().min(1).meta({ description: 'Absolute path of the model file (the first part of a split model).' }),
  files: z.array(z.string().min(1)).default([]).meta({ description: 'Further files of a split model (parts 2..n), absolute paths in order.' }),
  source: z.enum(MODEL_SOURCES).default('registered').meta({ description: 'How the entry got here: registered, scan or pull.' }),
  size_bytes: z.int().min(0).nullable().default(null),
  license: z.string().default('unknown'),
  capabilities: z.array(z.string()).default(['chat']),
  hf_repo: z.string().nullable().default(null),
  hf_filename: z.string().nullable().default(null),
  tags: z.array(z.string()).default([]),
  backends: z.array(z.string()).default([]),
  mmproj: z.string().nullable().default(null),
  defaults: z.strictObject({
    profile: z.string().nullable().default(null),
    context_size: z.int().min(128).nullable().default(null),
    n_gpu_layers: z.int().min(-1).nullable().default(null),
    extra_args: nulFreeString().nullable().default(null),
    chat_template: z.string().nullable().default(null),
  }).prefault({}),
  metadata: z.strictObject({
    context_length: z.int().min(1).nullable().default(null),
    sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable().default(null),
    commit: z.string().regex(/^[0-9a-f]{40}$/).nullable().default(null).meta({ description: 'The Hugging Face commit a pulled model came from.' }),
    architecture: z.string().nullable().default(null).meta({ description: 'general.architecture from the GGUF header.' }),
    quant: z.string().nullable().default(null).meta({ description: 'The quant the file name carries (Q4_K_M, …).' }),
  }).prefault({}),
});

export const RegistryFileSchema = z.strictObject({
  scan_exclude: z.array(z.string().min(1)).default([]).meta({ description: 'Model files the roots scan skips: the paths of removed entries.' }),
  models: z.record(z.string().regex(MODEL_ID_PATTERN, { message: 'expected a model id: letters, digits, ".", "_", ":", "-"' }), ModelEntrySchema).default({}),
});

export type ModelEntry = z.output<typeof ModelEntrySchema>;
export type RegistryFile = z.output<typeof RegistryFileSchema>;
