// /api/updates (docs/api.md, "Updates"): which version runs, which one the channel offers.
import { valid } from 'semver';
import { z } from 'zod';
import { UPDATE_CHANNELS } from './vocabulary.js';

export type UpdateChannel = (typeof UPDATE_CHANNELS)[number];

/** The npm dist-tag each channel follows. */
export const CHANNEL_TAG: Readonly<Record<UpdateChannel, string>> = { stable: 'latest', nightly: 'nightly' };

export const PutChannelRequestSchema = z.strictObject({ channel: z.enum(UPDATE_CHANNELS) });

export interface UpdateCheckPayload {
  package: string;
  registry: string;
  current: string;
  channel: UpdateChannel;
  /** false: the registry has no such package at all (a mirror without svc); latest is null and versions empty. */
  published: boolean;
  /** The version the channel's dist-tag names; null when the registry has no such tag. */
  latest: string | null;
  update_available: boolean;
  /** Versions the registry has, newest first (at most 20), for --target. */
  versions: string[];
}

/**
 * POST /api/updates/apply: a version (a leading "v" is dropped), else the channel's newest when
 * newer. A version older than the running one needs allow_downgrade (issue 22: an older build
 * may predate a security fix); the route is host-only either way.
 */
export const ApplyUpdateRequestSchema = z.strictObject({
  version: z.string().trim().refine((v) => valid(v) !== null, 'a version like 1.2.3 or 1.3.0-nightly.4').transform((v) => v.replace(/^v/, '')).optional(),
  allow_downgrade: z.boolean().default(false),
});
export type ApplyUpdateRequest = z.output<typeof ApplyUpdateRequestSchema>;

/**
 * An update job's states, in order. The gateway runs queued → migrating and hands the job to
 * a detached worker (switching on), which outlives the restart it causes. Terminal: applied,
 * failed (nothing switched, or a switch back that itself failed), rolled_back (switched,
 * unhealthy, switched back by itself).
 */
export const UPDATE_JOB_STATES = ['queued', 'downloading', 'verifying', 'installing', 'migrating', 'switching', 'restarting', 'health_check', 'rolling_back', 'applied', 'failed', 'rolled_back'] as const;
export type UpdateJobState = (typeof UPDATE_JOB_STATES)[number];
export const TERMINAL_UPDATE_STATES: ReadonlySet<UpdateJobState> = new Set(['applied', 'failed', 'rolled_back']);
/** The states the worker owns: a gateway that starts meanwhile watches the job, it does not touch it. */
export const HANDED_OVER_STATES: ReadonlySet<UpdateJobState> = new Set(['switching', 'restarting', 'health_check', 'rolling_back']);

/** A tree svc can run from: a version directory, or wherever the first version was installed. */
export interface InstalledTree {
  version: string;
  path: string;
}

export interface UpdateJob {
  /** 12 hex digits. */
  id: string;
  kind: 'update' | 'rollback';
  channel: UpdateChannel;
  state: UpdateJobState;
  /** What the current state is doing, in one line. */
  message: string;
  /** The tree that ran when the job started, and the one it switches to. */
  from: InstalledTree;
  to: InstalledTree;
  created_at: string;
  updated_at: string;
  /** Set when it ended failed or rolled_back. */
  error: { code: string; message: string } | null;
  /** true: the gateway restarted on `to`; false: it did not (failed before or rolled back); null: not yet. */
  restarted: boolean | null;
  restart_mode: 'self' | 'systemd' | null;
  /** The config migrations the new version ran (the backup is restored on a rollback). */
  migration: { migrated: boolean; from?: number; to?: number; backup?: string } | null;
  /** Each state entered, with when and why. */
  history: Array<{ state: UpdateJobState; at: string; message: string }>;
  /** The process writing this job now: the gateway until the hand-over, the worker after it. */
  owner_pid: number;
  /** What the worker needs: the gateway to restart, and what to put back on a rollback. */
  handover: UpdateHandover | null;
}

export interface UpdateHandover {
  gateway: { pid: number; host: string; port: number; exec_argv: string[] };
  prefix: string;
  /** Where `current` pointed before the switch (null: it did not exist). */
  current_before: string | null;
  previous_before: InstalledTree | null;
  health_timeout_s: number;
  /** The gateway's log when the worker restarts it itself. */
  log_file: string;
}

/** GET /api/updates/state: where svc runs from and what a rollback would switch to. */
export interface UpdateStatePayload {
  version: string;
  running_tree: string;
  prefix: string;
  current: string | null;
  previous: InstalledTree | null;
  installed_versions: string[];
  active_job: UpdateJob | null;
}
