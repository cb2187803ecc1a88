// What a bank holds, for an operator (the bank admin routes; docs/memory.md, "Banks"): its
// memories page by page, one by id, its documents (items grouped by document_id), its tags
// with counts. These read a bank whole, private items included: they are admin routes, not
// an agent's (an agent reads through /api/memory/list|search|recall, filtered to what it may see).
import { SvcError } from '../protocol/errors.js';
import type { MemoryDocumentView, MemoryItem } from '../protocol/memory.js';
import { type MemoryDeps, toItem } from './service.js';
import type { BankAccess } from './types.js';

const notFound = (bank: string, what: string, id: string) =>
  new SvcError('memory.item_not_found', `no ${what} "${id.slice(0, 128)}" in bank "${bank}"`, { bank, [what === 'memory' ? 'id' : 'document_id']: id.slice(0, 128) });

export class MemoryBankContent {
  constructor(private readonly banks: BankAccess, private readonly deps: MemoryDeps) {}

  /** One page in (ts, id) order; next_offset is null on the last page. */
  async memories(bank: string, page: { dataset?: string; offset: number; limit: number }): Promise<{ items: MemoryItem[]; next_offset: number | null }> {
    await this.banks.existing(bank);
    const store = await this.banks.store();
    const rows = await store.list(bank, { dataset: page.dataset, offset: page.offset, limit: page.limit });
    return { items: rows.map(toItem), next_offset: rows.length < page.limit ? null : page.offset + rows.length };
  }

  async memory(bank: string, id: string): Promise<MemoryItem> {
    const row = await (await this.banks.existingAdmin(bank)).item(bank, id);
    if (!row) throw notFound(bank, 'memory', id);
    return toItem(row);
  }

  async deleteMemory(bank: string, id: string, actor: string): Promise<{ deleted: number }> {
    await this.memory(bank, id);
    const deleted = await (await this.banks.store()).delete(bank, [id]);
    this.deps.publish({ type: 'memory.deleted', source: `memory:${bank}`, message: `${deleted} memories deleted`, data: { banks: [bank], ids: [id], deleted, agent: 'admin' } });
    this.deps.record({ action: 'memory.delete', actor, target: bank, details: { ids: [id], deleted, via: 'bank admin' } });
    return { deleted };
  }

  async documents(bank: string, page: { offset: number; limit: number }): Promise<{ documents: MemoryDocumentView[]; next_offset: number | null }> {
    const documents = await (await this.banks.existingAdmin(bank)).documents(bank, page);
    return { documents, next_offset: documents.length < page.limit ? null : page.offset + documents.length };
  }

  async document(bank: string, documentId: string): Promise<{ document_id: string; items: MemoryItem[] }> {
    const rows = await (await this.banks.existingAdmin(bank)).document(bank, documentId);
    if (rows.length === 0) throw notFound(bank, 'document', documentId);
    return { document_id: documentId, items: rows.map(toItem) };
  }

  async deleteDocument(bank: string, documentId: string, actor: string): Promise<{ document_id: string; deleted: number }> {
    const deleted = await (await this.banks.existingAdmin(bank)).deleteDocument(bank, documentId);
    if (deleted === 0) throw notFound(bank, 'document', documentId);
    this.deps.publish({ type: 'memory.document_deleted', source: `memory:${bank}`, message: `document ${documentId.slice(0, 128)} deleted from ${bank} (${deleted} memories)`, data: { bank, document_id: documentId, deleted } });
    this.deps.record({ action: 'memory.document_delete', actor, target: bank, details: { document_id: documentId, deleted } });
    return { document_id: documentId, deleted };
  }

  async tags(bank: string): Promise<{ tags: Array<{ tag: string; count: number }> }> {
    return { tags: await (await this.banks.existingAdmin(bank)).tags(bank) };
  }
}
