// Re-embedding a bank with the current embedding model (POST /api/memory/banks/<id>/reembed,
// `svc memory reembed <bank>`; docs/memory.md, "Re-embedding"): after the embed model changed
// (and with it, often, the dimension), a bank's vectors no longer compare with a query's, and
// writes and searches are refused with memory.dimension_mismatch until this has run.
// A job in the background: every item's text is embedded again, a page at a time, and written
// beside its old vector (`dim` tells them apart: a search of the old dimension still finds the
// old ones meanwhile); at the end the bank takes the new dimension and its HNSW index is made.
// A job that fails leaves the bank as it was (its old dimension), to be run again: the items
// already done are simply done again. One job per bank at a time; the last one per bank is kept
// in memory (GET …/reembed) and reported by events (memory.reembed.*).
import { randomUUID } from 'node:crypto';
import { SvcError } from '../protocol/errors.js';
import type { MemoryReembedJob } from '../protocol/memory.js';
import { checkBankId } from './identity.js';
import { embed } from './model-calls.js';
import type { MemoryDeps, MemoryService } from './service.js';
import type { BankAccess } from './types.js';

/** Items embedded and written per round trip. */
const PAGE = 32;
/** A progress event every this many items (and at the end). */
const PROGRESS_EVERY = 256;

export class MemoryReembed {
  private readonly jobs = new Map<string, MemoryReembedJob>();

  constructor(private readonly banks: BankAccess, private readonly service: MemoryService, private readonly deps: MemoryDeps) {}

  /** The last job of the bank since the gateway started. */
  job(bank: string): MemoryReembedJob {
    const job = this.jobs.get(checkBankId(bank));
    if (!job) throw new SvcError('memory.item_not_found', `bank "${bank}" has not been re-embedded since the gateway started`, { bank });
    return { ...job };
  }

  /** Starts a job and answers at once with it (running); refused while one runs for the bank. */
  async start(bank: string, actor: string): Promise<MemoryReembedJob> {
    const running = this.jobs.get(bank);
    if (running?.state === 'running') throw new SvcError('memory.reembed_running', `bank "${bank}" is being re-embedded already (job ${running.id})`, { bank, job: running.id });
    const admin = await this.banks.existingAdmin(bank);
    const record = await admin.bank(bank);
    const model = this.deps.config().svc.memory.embedding.embed_model;
    const job: MemoryReembedJob = {
      id: randomUUID(), bank, model, state: 'running', total: record?.items ?? 0, done: 0, from_dimension: record?.dimension ?? null, to_dimension: null,
      started_at: new Date().toISOString(), finished_at: null, error: null,
    };
    this.jobs.set(bank, job);
    this.deps.publish({ type: 'memory.reembed.started', source: `memory:${bank}`, message: `re-embedding bank ${bank} (${job.total} memories) with ${model}`, data: { job: job.id, bank, model, total: job.total } });
    this.deps.record({ action: 'memory.reembed', actor, target: bank, details: { job: job.id, model, total: job.total } });
    void this.run(job, actor);
    return { ...job };
  }

  private async run(job: MemoryReembedJob, actor: string): Promise<void> {
    const { bank, model } = job;
    try {
      const admin = await this.banks.admin();
      let dimension: number | null = null;
      let after: string | null = null;
      let reported = 0;
      for (;;) {
        const page = await admin.textPage(bank, after, PAGE);
        if (page.length === 0) break;
        const rows = [];
        for (const item of page) rows.push({ id: item.id, embedding: await embed(this.deps.dispatcher, model, item.text) });
        dimension ??= rows[0]!.embedding.length;
        await admin.setEmbeddings(bank, rows);
        job.done += rows.length;
        after = page.at(-1)!.id;
        if (job.done - reported >= PROGRESS_EVERY) {
          reported = job.done;
          this.deps.publish({ type: 'memory.reembed.progress', source: `memory:${bank}`, message: `re-embedding ${bank}: ${job.done}/${job.total}`, data: { job: job.id, bank, done: job.done, total: job.total } });
        }
      }
      // An empty bank takes the model's dimension all the same, so that it accepts writes again.
      dimension ??= (await embed(this.deps.dispatcher, model, 'dimension')).length;
      await admin.setDimension(bank, dimension);
      this.service.forgetBank(bank);
      Object.assign(job, { state: 'done', to_dimension: dimension, finished_at: new Date().toISOString() });
      this.deps.publish({ type: 'memory.reembed.completed', source: `memory:${bank}`, message: `bank ${bank} re-embedded: ${job.done} memories, ${job.from_dimension ?? '-'} -> ${dimension} dimensions`, data: { job: job.id, bank, done: job.done, from_dimension: job.from_dimension, to_dimension: dimension } });
      this.deps.record({ action: 'memory.reembed', actor, target: bank, outcome: 'ok', details: { job: job.id, done: job.done, to_dimension: dimension } });
    } catch (error) {
      const message = (error as Error).message;
      Object.assign(job, { state: 'failed', error: message, finished_at: new Date().toISOString() });
      this.deps.publish({ type: 'memory.reembed.failed', source: `memory:${bank}`, severity: 'warn', message: `re-embedding bank ${bank} failed after ${job.done} memories: ${message}`, data: { job: job.id, bank, done: job.done, error: message } });
      this.deps.record({ action: 'memory.reembed', actor, target: bank, outcome: 'error', message, details: { job: job.id, done: job.done } });
    }
  }
}
