// Graph extraction on the pgvector engine (docs/memory.md "Graph"): each memory added while
// [memory.graph].enabled is queued (queue.ts) for the extraction slot (extraction.ts), and
// its entities and relations land in the graph tables (graph-store.ts) in one transaction.
// Also the status, the retry of items left without an extraction, the subgraph of a bank
// (subgraph.ts) and recall's expansion through shared entities. The settings' write and
// the hindsight drop-in are the route's (server/routes/memory-graph.ts, drop-in.ts).
import type { ResolvedConfig } from '../../config/load.js';
import type { ActivityInput } from '../../activity/store.js';
import type { EventInput } from '../../protocol/events.js';
import { SvcError } from '../../protocol/errors.js';
import type { MemoryItem } from '../../protocol/memory.js';
import type { MemoryGraphRetryAnswer, MemoryGraphStatus, SubgraphAnswer } from '../../protocol/memory-graph.js';
import type { MemoryDatabase } from '../db/database.js';
import { agentTag, checkBankId, type MemoryIdentity, PRIVATE_TAG, visibleTo } from '../identity.js';
import { toItem } from '../service.js';
import { SqlMemoryStore, type MemoryStore } from '../store.js';
import { type ChatDispatcher, extractGraph } from './extraction.js';
import { type ExtractionJob, itemsToExtract, markExtraction, markPending, pendingItems, relatedItems, writeExtraction } from './graph-store.js';
import { ExtractionQueue, QUEUE_CAPACITY } from './queue.js';
import { subgraph, type SubgraphQuery } from './subgraph.js';

/** Recall's expansion: the hits whose entities are followed, and how many items it may add. */
const EXPANSION_SEEDS = 5;
const EXPANSION_ITEMS = 5;

export interface MemoryGraphDeps {
  config: () => ResolvedConfig;
  dispatcher: ChatDispatcher;
  /** The memory service's store (opened on first use; refused when memory is off or not pgvector). */
  store: () => Promise<MemoryStore>;
  publish: (event: EventInput) => void;
  record: (entry: ActivityInput) => void;
  log: (line: string) => void;
}

export class MemoryGraph {
  private readonly queue: ExtractionQueue;
  /** The pending items of an earlier gateway were queued again (resume). */
  private resumed = false;

  constructor(private readonly deps: MemoryGraphDeps) {
    this.queue = new ExtractionQueue({
      attempt: (job, attempt, signal) => this.extract(job, attempt, signal),
      failed: async (job, attempts, error) => {
        this.deps.log(`svc: memory graph extraction of ${job.id} failed after ${attempts} attempts: ${error.message}`);
        this.deps.publish({ type: 'memory.graph.failed', source: `memory:${job.bank}`, severity: 'warn', message: `graph extraction of ${job.id} failed: ${error.message}`, data: { bank: job.bank, id: job.id, attempts, error: error.message } });
        this.deps.record({ action: 'memory.graph.extract', kind: 'event', target: job.bank, outcome: 'error', message: error.message, details: { id: job.id, attempts } });
        await markExtraction(await this.db(), job, 'failed', attempts, error.message);
      },
    });
  }

  private get settings() {
    return this.deps.config().svc.memory.graph;
  }

  /** The enabled llm slots, by name: what extraction_slot may be. */
  availableSlots(config: Pick<ResolvedConfig, 'slots'> = this.deps.config()): string[] {
    return config.slots.filter((s) => s.config.slot.type === 'llm' && s.config.slot.enabled).map((s) => s.name);
  }

  status(): MemoryGraphStatus {
    const { enabled, extraction_slot, llm_timeout_s } = this.settings;
    const available = this.availableSlots();
    return {
      enabled, extraction_slot, route: `svc/${extraction_slot}`, slot_resolves: available.includes(extraction_slot), available_slots: available,
      ...this.queue.counters, llm_timeout_s, engine: this.deps.config().svc.memory.engine,
    };
  }

  private async db(): Promise<MemoryDatabase> {
    const store = await this.deps.store();
    if (!(store instanceof SqlMemoryStore)) throw new SvcError('memory.engine_unsupported', 'this memory engine keeps no graph tables of svc\'s', { engine: this.deps.config().svc.memory.engine });
    return store.db;
  }

  private get extracting(): boolean {
    const { memory } = this.deps.config().svc;
    return memory.enabled && memory.graph.enabled && memory.engine === 'pgvector';
  }

  /**
   * MemoryService's add hook, awaited before the add is answered: when extraction is on (the
   * daemon builds its own graph on hindsight), the item is marked pending in the database,
   * then queued. A mark that fails leaves the item to a retry; the add stands.
   */
  async onAdded(job: ExtractionJob): Promise<void> {
    if (!this.extracting) return;
    await markPending(await this.db(), job).catch((error: unknown) => this.deps.log(`svc: memory graph could not mark ${job.id} pending: ${(error as Error).message}`));
    this.queue.enqueue(job);
  }

  /**
   * The store was opened (the first memory use of this gateway): the items a previous gateway
   * had queued and not built are queued again, in the order they were added.
   */
  async resume(): Promise<void> {
    if (!this.extracting || this.resumed) return;
    this.resumed = true;
    try {
      const items = await pendingItems(await this.db(), QUEUE_CAPACITY);
      let queued = 0;
      for (const item of items) if (this.queue.enqueue(item)) queued += 1;
      if (queued > 0) this.deps.log(`svc: memory graph extraction resumed: ${queued} item(s) queued before the last stop`);
    } catch (error) {
      this.resumed = false; // the next opening tries again
      this.deps.log(`svc: memory graph could not read its pending items: ${(error as Error).message}`);
    }
  }

  private async extract(job: ExtractionJob, attempt: number, signal: AbortSignal): Promise<boolean> {
    const { extraction_slot, llm_timeout_s } = this.settings;
    const extraction = await extractGraph(this.deps.dispatcher, extraction_slot, job.text, llm_timeout_s, signal);
    if (!(await writeExtraction(await this.db(), job, extraction, attempt))) return false;
    this.deps.publish({
      type: 'memory.graph.built', source: `memory:${job.bank}`, message: `graph of ${job.id}: ${extraction.entities.length} entities, ${extraction.relations.length} relations`,
      data: { bank: job.bank, id: job.id, entities: extraction.entities.length, relations: extraction.relations.length, attempts: attempt },
    });
    return true;
  }

  /**
   * Items copied in bulk (an import, a unify, a migration from hindsight) are not added one by
   * one through onAdded: once the copy is done, queue every item with no extraction yet, as a
   * retry does. How many were queued; undefined while extraction is off.
   */
  async queueCopied(actor: string): Promise<number | undefined> {
    if (!this.extracting) return undefined;
    return (await this.retry(actor)).queued;
  }

  /** Queues every item with no extraction yet or a failed one (as many as the queue holds). */
  async retry(actor: string): Promise<MemoryGraphRetryAnswer> {
    if (!this.settings.enabled) throw new SvcError('memory.graph_disabled', 'graph extraction is off: turn it on first (svc memory graph enable --slot <name>, or PUT /api/memory/graph {"enabled": true})', { field: 'memory.graph.enabled' });
    const items = await itemsToExtract(await this.db(), QUEUE_CAPACITY * 10);
    const banks = new Set<string>();
    let queued = 0;
    for (const item of items) {
      if (!this.queue.enqueue(item)) continue;
      queued += 1;
      banks.add(item.bank);
    }
    const answer = { queued, skipped: items.length - queued, banks: [...banks].sort() };
    this.deps.publish({ type: 'memory.graph.retry', source: 'memory', message: `graph extraction: ${queued} item(s) queued, ${answer.skipped} skipped`, data: answer });
    this.deps.record({ action: 'memory.graph.retry', actor, target: 'memory', details: { ...answer } });
    return answer;
  }

  /** A bank's subgraph as the identity may see it; memory.bank_not_found, memory.graph_node_not_found. */
  async subgraph(identity: MemoryIdentity, bank: string, q: SubgraphQuery): Promise<SubgraphAnswer> {
    checkBankId(bank);
    const db = await this.db();
    const known = await db.query('SELECT 1 FROM memory_banks WHERE id = $1', [bank]);
    if (known.rowCount === 0) throw new SvcError('memory.bank_not_found', `no bank "${bank}"`, { bank });
    const answer = await subgraph(db, bank, { privateTag: PRIVATE_TAG, ownTag: agentTag(identity.agent) }, q);
    if (!answer) throw new SvcError('memory.graph_node_not_found', `no ${q.kind === 'entities' ? 'entity' : 'memory'} "${q.node}" in the graph of bank "${bank}" that this agent may see`, { bank, node: q.node, kind: q.kind });
    return answer;
  }

  /** Recall's `graph: true`: visible items of the asked types sharing entities with the top hits, after them. */
  async expand(identity: MemoryIdentity, hits: readonly MemoryItem[], types: readonly string[]): Promise<MemoryItem[]> {
    const seeds = hits.slice(0, EXPANSION_SEEDS).map((hit) => hit.id);
    if (seeds.length === 0) return [];
    const rows = await relatedItems(await this.db(), seeds, { privateTag: PRIVATE_TAG, ownTag: agentTag(identity.agent) }, EXPANSION_ITEMS * 4);
    const have = new Set(hits.map((hit) => hit.id));
    // Below every hit: the stable precedence sort keeps them after hits of the same precedence.
    const lowest = Math.min(...hits.map((hit) => hit.score ?? 0));
    return rows.filter((row) => !have.has(row.id) && types.includes(row.type) && visibleTo(identity.agent, row.tags))
      .slice(0, EXPANSION_ITEMS).map((row) => ({ ...toItem(row), score: lowest }));
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
