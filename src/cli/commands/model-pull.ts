// svc model pull|pulls|cancel|search: model downloads over /api/models/<id>/pull. The pull
// runs in the gateway; the CLI starts it and follows its stream, drawing one progress line
// on a terminal and plain lines otherwise. Ctrl-C cancels the job and keeps the parts.
import { parsePullRef, pullModelId } from '../../protocol/pull-ref.js';
import type { PullJobPayload, PullPlanPayload } from '../../protocol/pulls.js';
import { TERMINAL_PULL_STATES } from '../../protocol/pulls.js';
import type { ApiClient } from '../client.js';
import { eventData } from '../event-stream.js';
import { CliExit, EXIT, print, printJson, table } from '../output.js';
import { formatBytes } from './model.js';

export const EXIT_PULL_CANCELLED = 130;

export interface PullOptions {
  id?: string;
  json?: boolean;
  dryRun?: boolean;
  force?: boolean;
  slot?: string;
  context?: number;
}

export function pullIdFor(ref: string, id?: string): string {
  if (id) return id;
  const parsed = parsePullRef(ref);
  if ('error' in parsed) throw new CliExit(EXIT.usage, `cannot pull ${JSON.stringify(ref)}: ${parsed.error}`);
  return pullModelId(parsed);
}

export async function modelPull(client: ApiClient, ref: string, options: PullOptions): Promise<void> {
  const id = pullIdFor(ref, options.id);
  const body = { ref, force: options.force ?? false, ...(options.context !== undefined && { context: options.context }) };
  if (options.dryRun) {
    const { plan, refusal } = await client.planPull(id, body);
    if (options.json) printJson({ plan, refusal });
    else for (const line of describePlan(plan, refusal)) print(line);
    if (refusal) throw new CliExit(EXIT.failed, `${refusal.code}: ${refusal.message}`);
    return;
  }
  const job = await followPull(client, id, ref, body, options.json ? () => undefined : progressPrinter());
  if (options.json) printJson(job);
  if (job.state === 'cancelled') throw new CliExit(EXIT_PULL_CANCELLED, `pull of ${id} cancelled; the ${formatBytes(job.bytes_done)} on disk are kept: \`svc model pull ${ref}\` again resumes (svc model cancel ${id} --discard removes them)`);
  if (job.state === 'failed') throw new CliExit(EXIT.failed, `${job.error?.code ?? 'model.pull_failed'}: ${job.error?.message ?? 'the pull failed'}`);
  if (!options.json) print(`pulled ${id}: ${job.path} (${formatBytes(job.bytes_total)}${job.resumed ? `, resumed: ${formatBytes(job.bytes_fetched)} fetched` : ''}, sha256 ${job.sha256?.slice(0, 12) ?? '-'})`);
  if (options.slot) {
    const assigned = await client.assignModel(id, options.slot);
    if (!options.json) print(`assigned ${id} to slot ${assigned.slot} (was ${assigned.before || 'none'})`);
  }
}

/** Start (or join) the pull and follow it to a terminal state; Ctrl-C cancels it. */
export async function followPull(client: ApiClient, id: string, ref: string, body: { ref: string; force: boolean; context?: number }, onUpdate: (job: PullJobPayload) => void): Promise<PullJobPayload> {
  let job: PullJobPayload = await client.pullModel(id, body);
  onUpdate(job);
  const controller = new AbortController();
  let cancelling: Promise<PullJobPayload> | undefined;
  const interrupt = () => {
    cancelling ??= client.cancelPull(id);
    controller.abort();
  };
  process.once('SIGINT', interrupt);
  try {
    const response = await client.followPull(id, controller.signal);
    for await (const data of eventData(response.body)) {
      job = JSON.parse(data) as PullJobPayload;
      onUpdate(job);
      if (TERMINAL_PULL_STATES.includes(job.state)) break;
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    process.off('SIGINT', interrupt);
  }
  if (cancelling) return cancelling;
  if (!TERMINAL_PULL_STATES.includes(job.state)) job = await client.pullStatus(id);
  if (!TERMINAL_PULL_STATES.includes(job.state)) throw new CliExit(EXIT.unreachable, `the gateway stopped answering during the pull of ${id}; \`svc model pull ${ref}\` again resumes`);
  return job;
}

/** One redrawn line on a terminal; on a pipe a line per state and per 10 %. */
export function progressPrinter(stream: NodeJS.WriteStream = process.stderr): (job: PullJobPayload) => void {
  let lastState = '';
  let lastTenth = -1;
  return (job) => {
    const pct = job.bytes_total > 0 ? Math.floor((job.bytes_done / job.bytes_total) * 100) : 0;
    const rate = job.rate > 0 ? `${formatBytes(job.rate)}/s` : '-';
    const eta = job.eta_s !== null ? `ETA ${job.eta_s}s` : '';
    const file = job.files.find((f) => f.state === 'downloading')?.path ?? '';
    if (stream.isTTY) {
      const width = 24;
      const bar = '#'.repeat(Math.round((pct / 100) * width)).padEnd(width, '.');
      const text = job.state === 'downloading'
        ? `[${bar}] ${String(pct).padStart(3)}% ${formatBytes(job.bytes_done)}/${formatBytes(job.bytes_total)} ${rate} ${eta} ${file}`
        : TERMINAL_PULL_STATES.includes(job.state) ? `${job.model_id}: ${job.state}` : `${job.state} ${job.model_id}…`;
      stream.write(`\r\x1b[2K${text.slice(0, (stream.columns || 100) - 1)}`);
      if (TERMINAL_PULL_STATES.includes(job.state)) stream.write('\n');
      return;
    }
    const tenth = Math.floor(pct / 10);
    if (job.state !== lastState || (job.state === 'downloading' && tenth > lastTenth)) {
      stream.write(`${job.model_id}: ${job.state}${job.state === 'downloading' ? ` ${pct}% ${formatBytes(job.bytes_done)}/${formatBytes(job.bytes_total)} ${rate} ${eta}`.trimEnd() : ''}\n`);
      lastState = job.state;
      lastTenth = tenth;
    }
  };
}

export function describePlan(plan: PullPlanPayload, refusal: { code: string; message: string } | null): string[] {
  const f = plan.fit;
  const lines = [
    `model    ${plan.model_id}  (${plan.ref})`,
    ...(plan.repo ? [`repo     ${plan.repo} @ ${plan.commit} (${plan.revision})`] : []),
    `quant    ${plan.quant ?? '-'}   architecture ${plan.architecture ?? '-'}   native context ${plan.context_length ?? '-'}   layers ${plan.layers ?? '-'}${plan.mtp ? '   mtp' : ''}`,
    '',
    ...table(['FILE', 'ROLE', 'SIZE', 'ON DISK', 'SHA256'], plan.files.map((file) => [file.path, file.role, formatBytes(file.size), formatBytes(file.on_disk_bytes), file.sha256 ?? file.git_oid ?? '-'])),
    '',
    `memory   needs ~${f.total_mb} MiB (weights ${f.weights_mb} + KV cache ${f.kv_cache_mb} at context ${f.context} + ${f.overhead_mb}); host has ${f.budget_mb} MiB (RAM free ${f.ram_available_mb} + VRAM ${f.vram_mb}): ${f.fits ? 'fits' : 'does NOT fit'}`,
    `disk     ${formatBytes(plan.disk.needed_bytes)} to fetch, ${formatBytes(plan.disk.free_bytes)} free in ${plan.store}: ${plan.disk.fits ? 'ok' : 'NOT enough'}`,
    `into     ${plan.path}`,
  ];
  if (refusal) lines.push('', `a pull would be refused: ${refusal.code}`);
  return lines;
}

export async function modelPulls(client: ApiClient, options: { json?: boolean }): Promise<void> {
  const { pulls } = await client.listPulls();
  if (options.json) return printJson({ pulls });
  if (pulls.length === 0) return print('no pull jobs');
  const rows = pulls.map((j) => [j.model_id, j.state, `${formatBytes(j.bytes_done)}/${formatBytes(j.bytes_total)}`, j.rate ? `${formatBytes(j.rate)}/s` : '-', j.error?.code ?? '', j.ref]);
  for (const line of table(['MODEL', 'STATE', 'BYTES', 'RATE', 'ERROR', 'REF'], rows)) print(line);
}

export async function modelCancel(client: ApiClient, id: string, options: { discard?: boolean; json?: boolean }): Promise<void> {
  const job = await client.cancelPull(id, options.discard);
  if (options.json) return printJson(job);
  print(`pull of ${id}: ${job.state}${options.discard ? ' (parts removed)' : job.state === 'cancelled' ? ' (parts kept; pulling again resumes)' : ''}`);
}

export async function modelSearch(client: ApiClient, text: string, options: { json?: boolean; limit?: number }): Promise<void> {
  const found = await client.searchModels(text, options.limit ?? 20);
  if (options.json) return printJson(found);
  if (found.results.length === 0) return print(`no GGUF repos match "${text}"`);
  const rows = found.results.map((r) => [r.repo, String(r.downloads), r.quants.map((q) => `${q.quant ?? q.file}:${formatBytes(q.size)}`).join(' ') || '-']);
  for (const line of table(['REPO', 'DOWNLOADS', 'QUANTS'], rows)) print(line);
  print('pull one with `svc model pull <repo>:<quant>`');
}
