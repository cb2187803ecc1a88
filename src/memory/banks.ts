// Bank administration (GET/PUT/PATCH/DELETE /api/memory/banks[/<id>], its stats) and the engine's
// report (GET /api/memory/engine, which never fails: a store that cannot be reached says so).
// A bank delete needs the bank's id as confirmation and is audited (an activity row). A
// bank's memories, documents and tags are bank-content.ts; export/import bank-transfer.ts.
import { SvcError } from '../protocol/errors.js';
import type { MemoryBankPatchBody, MemoryBankPutBody, MemoryBankStats, MemoryBankView, MemoryEngineView } from '../protocol/memory.js';
import { MemoryBankContent } from './bank-content.js';
import { MemoryBankTransfer } from './bank-transfer.js';
import { dataDirInitialised, embeddedDataDir } from './db/data-dir.js';
import { checkBankId } from './identity.js';
import { embed } from './model-calls.js';
import { MemoryReembed } from './reembed.js';
import { MemoryUnify } from './unify.js';
import { MemoryHindsightMigrate } from './migrate-hindsight.js';
import type { MemoryDeps, MemoryService } from './service.js';
import { dimensionMismatch } from './store.js';
import type { MemoryBankAdmin, MemoryStore } from './types.js';
import { isAdapterEngine } from './adapters/select.js';
import type { MemoryEngineAdapter, PassthroughAnswer } from './adapters/types.js';

export class MemoryBanks {
  /** A bank's memories, documents and tags; its export and import; its re-embedding. */
  readonly content: MemoryBankContent;
  readonly transfer: MemoryBankTransfer;
  readonly reembed: MemoryReembed;
  /** Source banks copied into a target (svc memory migrate unify). */
  readonly unify: MemoryUnify;
  /** A Hindsight daemon's banks copied into the pgvector store (svc memory migrate --from hindsight). */
  readonly fromHindsight: MemoryHindsightMigrate;

  constructor(private readonly service: MemoryService, private readonly deps: MemoryDeps) {
    this.content = new MemoryBankContent(this, deps);
    this.transfer = new MemoryBankTransfer(this, deps, service.quota);
    this.reembed = new MemoryReembed(this, service, deps);
    this.unify = new MemoryUnify(this, deps);
    this.fromHindsight = new MemoryHindsightMigrate(this, service, deps);
  }

  store(): Promise<MemoryStore> {
    return this.service.store();
  }

  async list(): Promise<MemoryBankView[]> {
    const adapter = this.service.adapter();
    if (adapter) return adapter.banks();
    return (await this.service.store()).banks();
  }

  async existing(id: string): Promise<MemoryBankView> {
    const bank = (await this.list()).find((b) => b.id === checkBankId(id));
    if (!bank) throw new SvcError('memory.bank_not_found', `no memory bank "${id}"`, { bank: id });
    return bank;
  }

  /** The store's bank administration: the SQL store has one; an engine without is memory.engine_unsupported. */
  async admin(): Promise<MemoryBankAdmin> {
    const store = await this.service.store();
    if (!store.admin) throw new SvcError('memory.engine_unsupported', `the ${this.deps.config().svc.memory.engine} engine has no bank administration`, {});
    return store.admin;
  }

  /** A bank that exists, and the store's admin. */
  async existingAdmin(id: string): Promise<MemoryBankAdmin> {
    await this.existing(id);
    return this.admin();
  }

  /**
   * PUT: creates the bank or replaces its fields. Without a dimension a new bank takes the
   * embedding model's; an existing one keeps its own, and another one is refused (a bank
   * changes dimension only by a re-embedding).
   */
  async put(id: string, body: MemoryBankPutBody, actor: string): Promise<MemoryBankView> {
    checkBankId(id);
    const adapter = this.service.adapter();
    if (adapter) return this.putVia(adapter, id, body as Record<string, unknown>, 'PUT', actor);
    const admin = await this.admin();
    const before = await admin.bank(id);
    if (!before) await this.service.quota.mayCreate(await this.service.store(), id);
    const dim = body.dimension ?? before?.dimension ?? (await embed(this.deps.dispatcher, this.deps.config().svc.memory.embedding.embed_model, 'dimension')).length;
    if (before?.dimension != null && before.dimension !== dim) throw dimensionMismatch(id, before.dimension, dim);
    await admin.putBank(id, dim, body, 'replace');
    await this.service.ensureBank(await this.service.store(), id, dim);
    if (!before) {
      this.deps.publish({ type: 'memory.bank_created', source: `memory:${id}`, message: `memory bank ${id} created`, data: { bank: id } });
      this.deps.record({ action: 'memory.bank_create', actor, target: id, details: { dimension: dim } });
    } else {
      this.updated(id, ['name', 'description', 'config'], actor);
    }
    return this.existing(id);
  }

  /** PATCH: the fields given change (config merged key by key); the bank must exist. */
  async patch(id: string, body: MemoryBankPatchBody, actor: string): Promise<MemoryBankView> {
    const adapter = this.service.adapter();
    if (adapter) return this.putVia(adapter, checkBankId(id), body as Record<string, unknown>, 'PATCH', actor);
    const admin = await this.existingAdmin(id);
    await admin.putBank(id, null, body, 'merge');
    this.updated(id, Object.keys(body), actor);
    return this.existing(id);
  }

  private updated(id: string, fields: string[], actor: string): void {
    this.deps.publish({ type: 'memory.bank_updated', source: `memory:${id}`, message: `memory bank ${id} updated (${fields.join(', ') || 'nothing'})`, data: { bank: id, fields } });
    this.deps.record({ action: 'memory.bank_update', actor, target: id, details: { fields } });
  }

  async delete(id: string, confirm: string | undefined, actor: string): Promise<{ deleted: string; items: number }> {
    checkBankId(id);
    if (confirm !== id) {
      throw new SvcError('memory.confirm_required', `deleting bank "${id}" removes all its memories: repeat its id as ?confirm=${id} or in the body {"confirm": "${id}"}`, { bank: id, confirm: confirm ?? null });
    }
    await this.existing(id);
    const adapter = this.service.adapter();
    const items = adapter ? await adapter.deleteBank(id) : await (await this.service.store()).deleteBank(id);
    this.service.forgetBank(id);
    this.deps.publish({ type: 'memory.bank_deleted', source: `memory:${id}`, severity: 'warn', message: `memory bank ${id} deleted with ${items} memories`, data: { bank: id, items } });
    this.deps.record({ action: 'memory.bank_delete', actor, target: id, details: { items } });
    return { deleted: id, items };
  }

  async stats(id: string): Promise<MemoryBankStats> {
    const adapter = this.service.adapter();
    if (adapter) return adapter.stats(checkBankId(id));
    await this.existing(id);
    return { id, ...(await (await this.service.store()).stats(id)) };
  }

  /** PUT on an adapter's engine: the daemon makes the bank (hindsight), or it is known (mem0). */
  private async putVia(adapter: MemoryEngineAdapter, id: string, body: Record<string, unknown>, method: 'PUT' | 'PATCH', actor: string): Promise<MemoryBankView> {
    const known = (await adapter.banks()).some((b) => b.id === id);
    const bank = await adapter.putBank(id, body, method);
    if (!known) {
      this.deps.publish({ type: 'memory.bank_created', source: `memory:${id}`, message: `memory bank ${id} created`, data: { bank: id } });
      this.deps.record({ action: 'memory.bank_create', actor, target: id, details: { engine: adapter.engine } });
    }
    return bank;
  }

  /** The allowlisted per-bank passthrough (hindsight; docs/memory.md, "Hindsight"); other engines refuse it. */
  async passthrough(method: string, id: string, subpath: string, query: string, body: unknown): Promise<PassthroughAnswer> {
    checkBankId(id);
    const adapter = this.service.adapter();
    if (!adapter) throw new SvcError('memory.engine_unsupported', `/api/memory/banks/<id>/${subpath.slice(0, 80)} is the hindsight engine's passthrough; the ${this.deps.config().svc.memory.engine} engine does not serve it`, { engine: this.deps.config().svc.memory.engine });
    return adapter.passthrough(method, id, subpath, query, body);
  }

  /** The embedded database process's RSS for the metrics: null when it is not open or not running (never opens it). */
  async databaseRssBytes(): Promise<number | null> {
    const store = await this.service.opened()?.catch(() => undefined);
    return (await store?.rssBytes?.().catch(() => null)) ?? null;
  }

  /** Never throws: memory off, an engine not built yet, or an unreachable store are reported in the view. */
  async engine(): Promise<MemoryEngineView> {
    const { enabled, engine } = this.deps.config().svc.memory;
    const base: MemoryEngineView = {
      enabled, engine, kind: null, reachable: false, version: null, pid: null, rss_bytes: null,
      features: { search: false, recall: false, rerank: false, graph: false }, banks_total: null,
    };
    if (enabled && isAdapterEngine(engine)) {
      const { state, pending, ...report } = await this.service.adapter()!.report().catch((error: unknown) => ({ reachable: false, version: null, features: base.features, banks_total: null, error: (error as Error).message, state: undefined, pending: undefined }));
      return { ...base, ...report, ...(state && { state }), ...(pending !== undefined && { pending }) };
    }
    if (!enabled || engine !== 'pgvector') return { ...base, error: enabled ? `the ${engine} engine is not built yet` : 'memory is off' };
    const features = { search: true, recall: true, rerank: true, graph: true };
    // The embedded database starts on first use: asking after the engine does not start it.
    const opened = this.service.opened();
    const embedded = this.deps.config().svc.memory.pgvector_url === '';
    // Whether a first use will run initdb: what the CLI says while it waits (svc memory add).
    const initialised = embedded ? { initialised: await dataDirInitialised(embeddedDataDir(this.deps.config().paths.stateRoot)) } : {};
    if (!opened) return { ...base, features, ...(embedded && { kind: 'embedded' as const, state: 'stopped', ...initialised }), error: 'not opened yet (the store opens on the first memory request)' };
    try {
      // store.engine() neither starts the embedded database nor resets its idle timer.
      return { ...base, features, ...(await (await opened).engine()), ...initialised };
    } catch (error) {
      return { ...base, features, error: (error as Error).message };
    }
  }
}
