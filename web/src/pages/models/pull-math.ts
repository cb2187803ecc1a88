// Pure figures for the Models page: byte counts, rates and ETAs as people read them, a
// quick fit mark for a quant from its size alone (the pull's own fit check, which adds the
// KV cache from the file's header, stays the one that decides), and the id a pull creates.
import type { PullJobPayload, PullState } from '../../../../src/protocol/pulls.js';
import { parsePullRef, pullModelId } from '../../../../src/protocol/pull-ref.js';

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(bytes: number): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${UNITS[unit]}`;
}

export const formatRate = (bytesPerSecond: number): string => `${formatBytes(bytesPerSecond)}/s`;

/** Seconds left as "1h 2m", "3m 4s", "5s"; "—" when unknown. */
export function formatEta(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '—';
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${s}s`;
}

/** Whole percent done, 0 with nothing to do yet; never above 100. */
export function percent(done: number, total: number): number {
  if (total <= 0) return 0;
  return Math.min(100, Math.floor((done / total) * 100));
}

export const TERMINAL: readonly PullState[] = ['done', 'failed', 'cancelled'];
export const isTerminal = (state: PullState): boolean => TERMINAL.includes(state);
const stoppedEarly = (job: Pick<PullJobPayload, 'state'>): boolean => job.state === 'cancelled' || job.state === 'failed';
/**
 * A pull that stopped before the end after it got its file list, whose parts on disk a new pull
 * picks up. One that stopped before that (the endpoint unreachable, a ref naming nothing) has
 * nothing to resume.
 */
export const isResumable = (job: Pick<PullJobPayload, 'state' | 'files'>): boolean => stoppedEarly(job) && job.files.length > 0;
/** Errors of the ref itself: trying the same ref again cannot help. */
const REF_ERRORS: readonly string[] = ['model.pull_invalid_ref', 'model.pull_not_found'];
/** A pull that stopped before it had a file list, for a reason trying again may cure (the network, say). */
export const isRetryable = (job: Pick<PullJobPayload, 'state' | 'files' | 'error'>): boolean =>
  stoppedEarly(job) && job.files.length === 0 && !REF_ERRORS.includes(job.error?.code ?? '');

export type FitMark = 'fits' | 'tight' | 'too-big' | 'unknown';

/**
 * Weights plus the pull's compute allowance (64 MiB + 5 %, as src/models/pull/fit.ts counts
 * it) against free RAM plus VRAM. The KV cache is not known from a size, so a model using
 * more than 80 % of the budget before it is counted is marked tight, not fitting.
 */
export function fitMark(sizeBytes: number, budgetMb: number | null): { mark: FitMark; needMb: number } {
  const weightsMb = sizeBytes / (1024 * 1024);
  const needMb = Math.ceil(weightsMb + 64 + weightsMb * 0.05);
  if (budgetMb === null || budgetMb <= 0) return { mark: 'unknown', needMb };
  if (needMb > budgetMb) return { mark: 'too-big', needMb };
  return { mark: needMb > budgetMb * 0.8 ? 'tight' : 'fits', needMb };
}

/** Free RAM plus every GPU's VRAM, the budget a pull's fit check uses; null before the host is known. */
export function budgetMb(hardware: { host: { mem_available_mb: number }; probe: { gpus: Array<{ vram_mb: number | null }> } | null } | undefined): number | null {
  if (!hardware) return null;
  const vram = (hardware.probe?.gpus ?? []).reduce((sum, gpu) => sum + (gpu.vram_mb ?? 0), 0);
  return hardware.host.mem_available_mb + vram;
}

/** The registry id a pull of `ref` creates (the CLI's rule), or "" for a ref that does not parse. */
export function suggestedModelId(ref: string): string {
  const parsed = parsePullRef(ref);
  return 'error' in parsed ? '' : pullModelId(parsed);
}

/** The ref that pulls one quant of a search result: `org/repo:QUANT`, or the file when it names no quant. */
export const refForQuant = (repo: string, quant: { quant: string | null; file: string }): string => (quant.quant ? `${repo}:${quant.quant}` : `${repo}/${quant.file}`);

/** The pull list with one job put in place of its model's (or added at the end). */
/** The list without the job of this id (a dismissed one). */
export const withoutJob = (jobs: readonly PullJobPayload[], id: string): PullJobPayload[] => jobs.filter((j) => j.id !== id);

export function withJob(jobs: readonly PullJobPayload[], job: PullJobPayload): PullJobPayload[] {
  const index = jobs.findIndex((j) => j.model_id === job.model_id);
  if (index < 0) return [...jobs, job];
  return jobs.map((j, i) => (i === index ? job : j));
}
