// Wire shapes of /api/models, shared by the server and the CLI (docs/api.md, "Models").
import { z } from 'zod';

export type ModelSourceName = 'registered' | 'scan' | 'pull';

/** One registry entry as the API shows it. */
export interface ModelPayload {
  id: string;
  name: string;
  /** Absolute path of the model file (part 1 of a split model). */
  path: string;
  /** Parts 2..n of a split model; [] otherwise. */
  files: string[];
  size_bytes: number | null;
  license: string;
  source: ModelSourceName;
  tags: string[];
  capabilities: string[];
  backends: string[];
  /** The multimodal projector sidecar, or null. */
  mmproj: string | null;
  /** Native context length read from the GGUF header, or null. */
  context_length: number | null;
  sha256: string | null;
  /** The Hugging Face commit a pulled model came from. */
  commit: string | null;
  /** general.architecture from the GGUF header (pulled models). */
  architecture: string | null;
  /** The quant the file name carries (pulled models). */
  quant: string | null;
  hf_repo: string | null;
  hf_filename: string | null;
  defaults: {
    profile: string | null;
    context_size: number | null;
    n_gpu_layers: number | null;
    extra_args: string | null;
    chat_template: string | null;
  };
  /** Slots whose [model].default is this id. */
  used_by: string[];
  /** Whether the model file exists now. */
  present: boolean;
}

/** GET /api/models */
export interface ModelListPayload {
  models: ModelPayload[];
  /** The directories a scan walks: [models].roots, then the store. */
  roots: string[];
  /** The effective store: [models].store (or SVC_MODEL_STORE), else the first root. */
  store: string | null;
}

/** POST /api/models (201 created, 200 refreshed) */
export interface RegisterModelPayload {
  model: ModelPayload;
  created: boolean;
  warnings: string[];
}

/** DELETE /api/models/<ref> */
export interface RemoveModelPayload {
  removed: string;
  path: string;
  /** Slots that still name the model (only with force). */
  used_by: string[];
}

/** POST /api/models/<ref>/assign */
export interface AssignModelPayload {
  model: string;
  slot: string;
  /** The slot's previous [model].default ('' when none). */
  before: string;
  /** The [model].path the assignment removed, or null. */
  cleared_path: string | null;
}

/** POST /api/models/scan */
export interface ScanModelsPayload {
  roots: string[];
  missing_roots: string[];
  found: number;
  added: Array<{ id: string; path: string; mmproj: string | null }>;
  already_registered: number;
  excluded: number;
  sidecars: string[];
  skipped: Array<{ path: string; reason: string }>;
  warnings: string[];
}

/** POST /api/models: register a model file. */
export const RegisterModelRequestSchema = z.strictObject({
  id: z.string().min(1),
  /** Absolute path of the model file. */
  path: z.string().min(1),
  name: z.string().min(1).nullish().transform((v) => v ?? undefined),
  license: z.string().min(1).nullish().transform((v) => v ?? undefined),
  /** Register a .gguf file that does not start with the GGUF magic (an engine that takes another format). */
  force: z.boolean().optional(),
});

/** POST /api/models/<ref>/assign: make it a slot's default model. */
export const AssignModelRequestSchema = z.strictObject({ slot: z.string().min(1) });
