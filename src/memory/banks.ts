// Bank administration (GET/PUT/DELETE /api/memory/banks[/<id>], its stats) and the engine's
// report (GET /api/memory/engine, which never fails: a store that cannot be reached says so).
// A bank delete needs the bank's id as confirmation and is audited (an activity row).
import { SvcError } from '../protocol/errors.js';
import type { MemoryBankStats, MemoryBankView, MemoryEngineView } from '../protocol/memory.js';
import { checkBankId } from './identity.js';
import { embed } from './model-calls.js';
import type { MemoryDeps, MemoryService } from './service.js';

export class MemoryBanks {
  constructor(private readonly service: MemoryService, private readonly deps: MemoryDeps) {}

  async list(): Promise<MemoryBankView[]> {
    return (await this.service.store()).banks();
  }

  private async existing(id: string): Promise<MemoryBankView> {
    const bank = (await this.list()).find((b) => b.id === checkBankId(id));
    if (!bank) throw new SvcError('memory.bank_not_found', `no memory bank "${id}"`, { bank: id });
    return bank;
  }

  /** Create (or keep) a bank; without a dimension it takes the embedding model's. */
  async put(id: string, dimension: number | undefined, actor: string): Promise<MemoryBankView> {
    checkBankId(id);
    const store = await this.service.store();
    const known = (await store.banks()).some((b) => b.id === id);
    const dim = dimension ?? (await embed(this.deps.dispatcher, this.deps.config().svc.memory.embedding.embed_model, 'dimension')).length;
    await this.service.ensureBank(store, id, dim);
    if (!known) {
      this.deps.publish({ type: 'memory.bank_created', source: `memory:${id}`, message: `memory bank ${id} created`, data: { bank: id } });
      this.deps.record({ action: 'memory.bank_create', actor, target: id, details: { dimension: dim } });
    }
    return this.existing(id);
  }

  async delete(id: string, confirm: string | undefined, actor: string): Promise<{ deleted: string; items: number }> {
    checkBankId(id);
    if (confirm !== id) {
      throw new SvcError('memory.confirm_required', `deleting bank "${id}" removes all its memories: repeat its id as ?confirm=${id} or in the body {"confirm": "${id}"}`, { bank: id, confirm: confirm ?? null });
    }
    await this.existing(id);
    const items = await (await this.service.store()).deleteBank(id);
    this.service.forgetBank(id);
    this.deps.publish({ type: 'memory.bank_deleted', source: `memory:${id}`, severity: 'warn', message: `memory bank ${id} deleted with ${items} memories`, data: { bank: id, items } });
    this.deps.record({ action: 'memory.bank_delete', actor, target: id, details: { items } });
    return { deleted: id, items };
  }

  async stats(id: string): Promise<MemoryBankStats> {
    await this.existing(id);
    return { id, ...(await (await this.service.store()).stats(id)) };
  }

  /** Never throws: memory off, an engine not built yet, or an unreachable store are reported in the view. */
  async engine(): Promise<MemoryEngineView> {
    const { enabled, engine } = this.deps.config().svc.memory;
    const base: MemoryEngineView = {
      enabled, engine, kind: null, reachable: false, version: null, pid: null, rss_bytes: null,
      features: { search: false, recall: false, rerank: false, graph: false }, banks_total: null,
    };
    if (!enabled || engine !== 'pgvector') return { ...base, error: enabled ? `the ${engine} engine is not built yet` : 'memory is off' };
    const features = { search: true, recall: true, rerank: true, graph: true };
    // The embedded database starts on first use: asking after the engine does not start it.
    const opened = this.service.opened();
    if (!opened) return { ...base, features, error: 'not opened yet (the store opens on the first memory request)' };
    try {
      const store = await opened;
      const report = await store.engine();
      const banks = report.reachable ? (await store.banks()).length : null;
      return { ...base, features, ...report, banks_total: banks };
    } catch (error) {
      return { ...base, features, error: (error as Error).message };
    }
  }
}
