// Wire shapes of model pulls (docs/api.md, "Model pulls"), shared by the server and the CLI.
import { z } from 'zod';

export const PULL_STATES = ['queued', 'resolving', 'downloading', 'verifying', 'done', 'failed', 'cancelled'] as const;
export type PullState = (typeof PULL_STATES)[number];
export const TERMINAL_PULL_STATES: readonly PullState[] = ['done', 'failed', 'cancelled'];

export interface PullFilePlan {
  /** The path inside the repo (or the URL's file name). */
  path: string;
  role: 'model' | 'part' | 'mmproj';
  size: number;
  sha256: string | null;
  /** The git blob id a non-LFS file is checked against. */
  git_oid: string | null;
  url: string;
  /** Where the verified bytes go (a blob of the cache layout). */
  target: string;
  /** The path the registry names (the snapshot symlink). */
  link: string;
  on_disk_bytes: number;
}

export interface FitPayload {
  context: number;
  weights_mb: number;
  kv_cache_mb: number;
  overhead_mb: number;
  total_mb: number;
  ram_available_mb: number;
  vram_mb: number;
  budget_mb: number;
  fits: boolean;
}

export interface PullPlanPayload {
  model_id: string;
  ref: string;
  source: 'hf' | 'url';
  repo: string | null;
  revision: string | null;
  commit: string | null;
  quant: string | null;
  files: PullFilePlan[];
  path: string;
  parts: string[];
  mmproj: string | null;
  architecture: string | null;
  context_length: number | null;
  layers: number | null;
  mtp: boolean;
  bytes_total: number;
  bytes_on_disk: number;
  fit: FitPayload;
  disk: { free_bytes: number; needed_bytes: number; fits: boolean };
  profile: string | null;
  capabilities: string[] | null;
  store: string;
}

export interface PullFileProgress {
  path: string;
  role: PullFilePlan['role'];
  size: number;
  bytes_done: number;
  state: 'waiting' | 'downloading' | 'verifying' | 'done';
}

export interface PullJobPayload {
  id: string;
  model_id: string;
  ref: string;
  state: PullState;
  files: PullFileProgress[];
  bytes_done: number;
  bytes_total: number;
  /** Bytes fetched over the network by this job (bytes_done minus what was already on disk). */
  bytes_fetched: number;
  /** Bytes per second over the last few seconds. */
  rate: number;
  eta_s: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  error: { code: string; message: string } | null;
  sha256: string | null;
  path: string | null;
  commit: string | null;
  /** A pull that found parts on disk from an earlier one. */
  resumed: boolean;
  force: boolean;
}

export interface PullListPayload {
  pulls: PullJobPayload[];
}

/** POST /api/models/<id>/pull: a ref, or nothing to pull what the registry entry names. */
export const PullRequestSchema = z.strictObject({
  ref: z.string().min(1).max(2048).optional(),
  force: z.boolean().default(false),
  /** The context the fit check assumes (default: the native one, at most 8192). */
  context: z.int().min(128).max(10_000_000).optional(),
  dry_run: z.boolean().default(false),
});
export type PullRequest = z.input<typeof PullRequestSchema>;

export interface SearchResultPayload {
  repo: string;
  downloads: number;
  likes: number;
  quants: Array<{ quant: string | null; file: string; size: number }>;
}

/** GET /api/models/search */
export interface SearchPayload {
  query: string;
  results: SearchResultPayload[];
}
