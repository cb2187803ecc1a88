// The memory service (ctx.memory; docs/memory.md): identity and banks (identity.ts), the
// embeddings and the rerank through the dispatcher (model-calls.ts), the recall pipeline
// (recall.ts), over the SQL store, opened on first use. Every write and delete is an activity
// row and an event. Bank administration is in banks.ts.
import { access } from 'node:fs/promises';
import type { ResolvedConfig } from '../config/load.js';
import type { ActivityInput } from '../activity/store.js';
import type { EventInput } from '../protocol/events.js';
import { SvcError } from '../protocol/errors.js';
import type {
  MemoryAddAnswer, MemoryAddRequest, MemoryDeleteAnswer, MemoryDeleteRequest, MemoryItem, MemoryListAnswer, MemoryRecallRequest, MemorySearchRequest,
} from '../protocol/memory.js';
import { agentTag, checkBankId, parseListCursor, type MemoryIdentity, PRIVATE_TAG, readBanks, visibleTo, writeTarget } from './identity.js';
import { embed, type ModelDispatcher, rerank } from './model-calls.js';
import { applyRerank, byPrecedence, DEFAULT_RECALL_TYPES, filterVisible, fuseBanks, withinBudget } from './recall.js';
import type { MemoryItemRow, MemoryStore } from './store.js';
import type { MemoryViewer } from './types.js';
import { MemoryQuota } from './quota.js';
import { addVia, deleteVia, listVia, searchVia } from './adapters/delegate.js';
import { createEngineAdapter, isAdapterEngine, outboxMarkerPath } from './adapters/select.js';
import type { MemoryEngineAdapter, PromoteAnswer } from './adapters/types.js';

export interface MemoryDeps {
  config: () => ResolvedConfig;
  dispatcher: ModelDispatcher;
  /** Opens the store for the running config (the embedded database process, or [memory].pgvector_url). */
  openStore: () => Promise<MemoryStore>;
  publish: (event: EventInput) => void;
  record: (entry: ActivityInput) => void;
  log: (line: string) => void;
  /** After each add, awaited before it is answered: graph extraction marks the item pending and queues it (graph/service.ts). */
  onAdded?: (item: { bank: string; id: string; text: string }) => void | Promise<void>;
  /** The store was opened (the first memory use): graph extraction queues what an earlier gateway left pending. */
  onStoreOpened?: () => void;
  /** Recall with `graph: true`: items sharing entities with the hits (graph/service.ts). */
  expandRecall?: (identity: MemoryIdentity, hits: MemoryItem[], types: readonly string[]) => Promise<MemoryItem[]>;
  /** <state>: the hindsight engine's outbox marker lives in <state>/memory. */
  stateRoot?: string;
}

/** Candidates each bank gives a recall before the rerank and the budget. */
const RECALL_CANDIDATES = 50;
/** What the store filters by in SQL: another agent's private rows never leave the database. */
const viewerOf = (identity: MemoryIdentity): MemoryViewer => ({ privateTag: PRIVATE_TAG, ownTag: agentTag(identity.agent) });

export type RerankReport = 'applied' | 'skipped' | 'timeout' | 'error';

export const toItem = (row: MemoryItemRow): MemoryItem => ({
  id: row.id, text: row.text, timestamp: row.timestamp, dataset: row.dataset, tags: row.tags, source: row.source,
  metadata: row.metadata, score: row.score ?? null, type: row.type, bank: row.bank,
});

export class MemoryService {
  private opening?: Promise<MemoryStore>;
  /** bank -> dimension already ensured by this gateway (ensureBank is then skipped). */
  private readonly ensured = new Map<string, number>();
  /** The hindsight or mem0 adapter, made on first use (hindsight probes its daemon then). */
  private engineAdapter?: MemoryEngineAdapter;
  /** The caps on svc's own store: items per bank, banks ([memory].max_items_per_bank, max_banks). */
  readonly quota: MemoryQuota;

  constructor(private readonly deps: MemoryDeps) {
    this.quota = new MemoryQuota(() => ({ maxItemsPerBank: this.settings.max_items_per_bank, maxBanks: this.settings.max_banks }));
  }

  private get settings() {
    return this.deps.config().svc.memory;
  }

  /** The store, opened on first use; memory off or an engine not built yet is refused first. */
  async store(): Promise<MemoryStore> {
    const { enabled, engine } = this.settings;
    if (!enabled) throw new SvcError('memory.unavailable', 'memory is off ([memory].enabled = false)', { field: 'memory.enabled' });
    if (engine !== 'pgvector') throw new SvcError('memory.engine_unsupported', `the ${engine} engine has no SQL store of svc's: set [memory].engine = "pgvector" for that`, { engine, field: 'memory.engine' });
    return this.openStoreOnce();
  }

  /** The SQL store, whatever the engine: the hindsight engine keeps its outbox there. */
  private openStoreOnce(): Promise<MemoryStore> {
    if (!this.opening) {
      const opening = this.deps.openStore();
      opening.then(() => this.deps.onStoreOpened?.(), () => {
        if (this.opening === opening) this.opening = undefined; // the next use tries again
      });
      this.opening = opening;
    }
    return this.opening;
  }

  /** The adapter when [memory].engine is hindsight or mem0 (undefined for pgvector); memory off is refused first. */
  adapter(): MemoryEngineAdapter | undefined {
    const { enabled, engine } = this.settings;
    if (!enabled) throw new SvcError('memory.unavailable', 'memory is off ([memory].enabled = false)', { field: 'memory.enabled' });
    if (!isAdapterEngine(engine)) return undefined;
    if (this.engineAdapter && this.engineAdapter.engine !== engine) {
      // [memory].engine changed under a running gateway: the old adapter is let go, the new one made.
      void this.engineAdapter.close().catch(() => undefined);
      this.engineAdapter = undefined;
    }
    return (this.engineAdapter ??= createEngineAdapter(this.settings, {
      publish: this.deps.publish, record: this.deps.record, log: this.deps.log,
      stateRoot: this.deps.stateRoot ?? '.', openStore: () => this.openStoreOnce(),
    }));
  }

  /**
   * At gateway boot, after listen: on the hindsight engine the adapter is made now, so its
   * daemon is probed in the background, and a daemon down at boot makes the engine degraded
   * from the start, its re-probe timer running. Only when a daemon is configured
   * ([memory].hindsight_url or SVC_HINDSIGHT_URL) or the outbox holds writes to replay: a
   * gateway that never configured memory (the schema's default engine is hindsight) is not
   * reported degraded for a daemon nobody asked for; it probes at the first memory use.
   * svc's own database is not opened by this: only a degraded write needs the outbox.
   */
  async bootProbe(env: NodeJS.ProcessEnv = process.env): Promise<void> {
    const { enabled, engine, hindsight_url } = this.settings;
    if (!enabled || engine !== 'hindsight') return;
    const configured = hindsight_url !== '' || Boolean(env.SVC_HINDSIGHT_URL) || (await access(outboxMarkerPath(this.deps.stateRoot ?? '.')).then(() => true, () => false));
    if (!configured) return;
    try {
      this.adapter(); // its constructor runs the probe (adapters/hindsight-engine.ts, boot)
    } catch (error) {
      this.deps.log(`svc: memory engine hindsight not probed at boot: ${(error as Error).message}`);
    }
  }

  /** POST /api/memory/promote: the degraded hindsight engine tries its daemon now. */
  async promote(): Promise<PromoteAnswer> {
    const adapter = this.adapter();
    if (!adapter) return { promoted: false, changed: false, state: this.settings.engine, detail: 'only the hindsight engine has a degraded mode' };
    return adapter.promote();
  }

  /** The store if it was opened (GET /api/memory/engine does not open it). */
  opened(): Promise<MemoryStore> | undefined {
    return this.opening;
  }

  private embed(text: string): Promise<number[]> {
    return embed(this.deps.dispatcher, this.settings.embedding.embed_model, text);
  }

  async add(identity: MemoryIdentity, body: MemoryAddRequest, actor: string): Promise<MemoryAddAnswer> {
    const adapter = this.adapter();
    if (adapter) return addVia(adapter, this.deps, identity, body, actor);
    const store = await this.store();
    const { bank, tags } = writeTarget(identity, this.settings.unified_bank);
    // Refused before the embedding is paid for: a bank too many, or a full one (quota.ts).
    if (!this.ensured.has(bank)) await this.quota.mayCreate(store, bank);
    await this.quota.reserve(store, bank, 1);
    let added: { id: string; timestamp: string };
    try {
      const embedding = await this.embed(body.text);
      await this.ensureBank(store, bank, embedding.length);
      const allTags = [...new Set([...(body.tags ?? []).filter((t) => t !== PRIVATE_TAG && !t.startsWith('agent:')), ...tags])];
      added = await store.add(bank, { text: body.text, embedding, dataset: body.dataset, tags: allTags, metadata: body.metadata, document_id: body.document_id });
    } catch (error) {
      this.quota.release(bank, 1);
      throw error;
    }
    this.quota.commit(bank, 1);
    this.deps.publish({ type: 'memory.added', source: `memory:${bank}`, message: `memory ${added.id} added to ${bank}`, data: { bank, id: added.id, agent: identity.agent, private: identity.private } });
    this.deps.record({ action: 'memory.add', actor, target: bank, details: { id: added.id, agent: identity.agent, private: identity.private, dataset: body.dataset ?? null } });
    await this.deps.onAdded?.({ bank, id: added.id, text: body.text });
    return added;
  }

  async ensureBank(store: MemoryStore, bank: string, dimension: number): Promise<void> {
    if (this.ensured.get(bank) === dimension) return;
    await store.ensureBank(bank, dimension);
    this.ensured.set(bank, dimension);
  }

  forgetBank(bank: string): void {
    this.ensured.delete(bank);
    this.quota.forget(bank);
  }

  async search(identity: MemoryIdentity, body: MemorySearchRequest): Promise<{ items: MemoryItem[] }> {
    const adapter = this.adapter();
    if (adapter) return searchVia(adapter, this.deps, identity, body);
    const store = await this.store();
    const embedding = await this.embed(body.query);
    const perBank = await Promise.all(readBanks(identity, this.settings.unified_bank).map(async (bank) => {
      const rows = await store.search(bank, { embedding, text: body.query, limit: body.limit, dataset: body.dataset, tags: body.tags, before: body.before, after: body.after, viewer: viewerOf(identity) });
      return rows.filter((row) => visibleTo(identity.agent, row.tags)).map(toItem);
    }));
    return { items: fuseBanks(perBank).slice(0, body.limit) };
  }

  async recall(identity: MemoryIdentity, body: MemoryRecallRequest): Promise<{ items: MemoryItem[]; rerank: RerankReport; graph_added?: string[] }> {
    const adapter = this.adapter();
    const banks = readBanks(identity, this.settings.unified_bank);
    const perBank = adapter ? await adapter.recall(banks, body, identity) : await this.storeCandidates(identity, body);
    const candidates = filterVisible(fuseBanks(perBank), identity.agent, body.types ?? DEFAULT_RECALL_TYPES).slice(0, RECALL_CANDIDATES);
    let report: RerankReport = 'skipped';
    let ranked = candidates;
    if (candidates.length >= 2) {
      const { rerank_model, rerank_connect_timeout_s, rerank_read_timeout_s } = this.settings.embedding;
      const outcome = await rerank(this.deps.dispatcher, { model: rerank_model, connectTimeoutS: rerank_connect_timeout_s, readTimeoutS: rerank_read_timeout_s }, body.query, candidates.map((c) => c.text));
      if ('fallback' in outcome) this.deps.log(`svc: memory recall kept the fused order (rerank ${outcome.fallback}: ${outcome.reason})`);
      report = 'order' in outcome ? 'applied' : outcome.fallback;
      ranked = applyRerank(candidates, outcome);
    }
    const expanded = body.graph && this.deps.expandRecall ? await this.deps.expandRecall(identity, ranked, body.types ?? DEFAULT_RECALL_TYPES) : [];
    return { items: withinBudget(byPrecedence([...ranked, ...expanded]), body.max_tokens), rerank: report, ...(body.graph && { graph_added: expanded.map((item) => item.id) }) };
  }

  /** Each bank's recall candidates from the SQL store. */
  private async storeCandidates(identity: MemoryIdentity, body: MemoryRecallRequest): Promise<MemoryItem[][]> {
    const store = await this.store();
    const embedding = await this.embed(body.query);
    return Promise.all(readBanks(identity, this.settings.unified_bank).map(async (bank) => {
      const rows = await store.search(bank, { embedding, text: body.query, limit: RECALL_CANDIDATES, dataset: body.dataset, tags: body.tags, tagsMatch: body.tags_match, viewer: viewerOf(identity) });
      return rows.map(toItem);
    }));
  }

  /** One page over the banks the caller reads (or the one it names); the cursor is `bank@offset`. */
  async list(identity: MemoryIdentity, q: { dataset?: string; bank?: string; cursor?: string; limit: number }): Promise<MemoryListAnswer> {
    const adapter = this.adapter();
    if (adapter) return listVia(adapter, this.deps, identity, q);
    const store = await this.store();
    const banks = q.bank !== undefined ? [checkBankId(q.bank)] : readBanks(identity, this.settings.unified_bank);
    let { bankAt, offset } = parseListCursor(banks, q.cursor);
    const items: MemoryItem[] = [];
    for (; bankAt < banks.length; bankAt++, offset = 0) {
      const bank = banks[bankAt]!;
      while (items.length < q.limit) {
        const rows = await store.list(bank, { dataset: q.dataset, offset, limit: q.limit - items.length, viewer: viewerOf(identity) });
        offset += rows.length;
        items.push(...rows.filter((row) => visibleTo(identity.agent, row.tags)).map(toItem));
        if (rows.length === 0) break;
      }
      if (items.length >= q.limit) return { items, next_cursor: `${bank}@${offset}` };
    }
    return { items, next_cursor: null };
  }

  async delete(identity: MemoryIdentity, body: MemoryDeleteRequest, actor: string): Promise<MemoryDeleteAnswer> {
    const adapter = this.adapter();
    if (adapter) return deleteVia(adapter, this.deps, identity, body, actor);
    const store = await this.store();
    const banks = readBanks(identity, this.settings.unified_bank);
    const { ids, dataset } = body;
    // With a dataset: every item of it the caller may read, or only `ids` among them.
    if (dataset !== undefined && !store.admin) throw new SvcError('memory.engine_unsupported', 'this engine deletes by ids only', { field: 'dataset' });
    const counts = await Promise.all(banks.map((bank) => (dataset !== undefined
      ? store.admin!.deleteInDataset(bank, dataset, ids, viewerOf(identity))
      : store.delete(bank, ids ?? [], viewerOf(identity)))));
    const deleted = counts.reduce((a, b) => a + b, 0);
    this.deps.publish({ type: 'memory.deleted', source: 'memory', message: `${deleted} memories deleted`, data: { banks, ids: ids ?? [], deleted, agent: identity.agent } });
    this.deps.record({ action: 'memory.delete', actor, target: banks.join(','), details: { ids: ids ?? null, dataset: dataset ?? null, deleted, agent: identity.agent } });
    return { deleted };
  }

  /** The caller's visible items with these ids, in every bank it reads (svc-memory's memory_history). */
  async items(identity: MemoryIdentity, ids: string[]): Promise<MemoryItem[]> {
    const store = await this.store();
    const get = store.get?.bind(store);
    if (!get) throw new SvcError('memory.engine_unsupported', `the ${this.settings.engine} engine cannot read items by id`, { engine: this.settings.engine });
    const found = await Promise.all(readBanks(identity, this.settings.unified_bank).map((bank) => get(bank, ids, viewerOf(identity))));
    return found.flat().filter((row) => visibleTo(identity.agent, row.tags)).map(toItem);
  }

  /** Adds and removes tags on the caller's visible items (svc-memory's memory_curate); the identity tags are not the caller's to change. */
  async retag(identity: MemoryIdentity, body: { ids: string[]; add: string[]; remove: string[] }, actor: string): Promise<{ updated: number }> {
    const reserved = [...body.add, ...body.remove].filter((t) => t === PRIVATE_TAG || t.startsWith('agent:'));
    if (reserved.length > 0) throw new SvcError('request.invalid', `the tags ${PRIVATE_TAG} and agent:<id> say who owns an item and cannot be changed: ${reserved.join(', ')}`, { problems: [{ path: 'tags', message: 'reserved tag' }] });
    const store = await this.store();
    const retag = store.retag?.bind(store);
    if (!retag) throw new SvcError('memory.engine_unsupported', `the ${this.settings.engine} engine cannot change tags`, { engine: this.settings.engine });
    const banks = readBanks(identity, this.settings.unified_bank);
    const counts = await Promise.all(banks.map((bank) => retag(bank, body.ids, { add: body.add, remove: body.remove }, viewerOf(identity))));
    const updated = counts.reduce((a, b) => a + b, 0);
    this.deps.publish({ type: 'memory.retagged', source: 'memory', message: `${updated} memories retagged`, data: { banks, ids: body.ids, updated, agent: identity.agent } });
    this.deps.record({ action: 'memory.retag', actor, target: banks.join(','), details: { ids: body.ids, add: body.add, remove: body.remove, updated, agent: identity.agent } });
    return { updated };
  }

  async close(): Promise<void> {
    await this.engineAdapter?.close();
    this.engineAdapter = undefined;
    const opening = this.opening;
    this.opening = undefined;
    await (await opening?.catch(() => undefined))?.close();
  }
}
