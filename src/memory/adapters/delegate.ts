// The memory service's public methods when [memory].engine is an adapter's (hindsight,
// mem0): the same identity, banks, tags, events and activity rows as on the SQL store
// (service.ts), the storing and finding done by the adapter. Recall shares the service's
// pipeline (rerank, precedence, budget): only its candidates come from here.
import { SvcError } from '../../protocol/errors.js';
import type { MemoryAddAnswer, MemoryAddRequest, MemoryDeleteAnswer, MemoryDeleteRequest, MemoryItem, MemoryListAnswer, MemorySearchRequest } from '../../protocol/memory.js';
import { checkBankId, type MemoryIdentity, parseListCursor, PRIVATE_TAG, readBanks, writeTarget } from '../identity.js';
import { fuseBanks } from '../recall.js';
import type { ActivityInput } from '../../activity/store.js';
import type { ResolvedConfig } from '../../config/load.js';
import type { EventInput } from '../../protocol/events.js';
import type { MemoryEngineAdapter } from './types.js';

/** What these use of the memory service's deps (service.ts passes its own; a type here keeps the two modules apart). */
export interface DelegateDeps {
  config: () => ResolvedConfig;
  publish: (event: EventInput) => void;
  record: (entry: ActivityInput) => void;
}

export async function addVia(adapter: MemoryEngineAdapter, deps: DelegateDeps, identity: MemoryIdentity, body: MemoryAddRequest, actor: string): Promise<MemoryAddAnswer> {
  const { bank, tags } = writeTarget(identity, deps.config().svc.memory.unified_bank);
  const allTags = [...new Set([...(body.tags ?? []).filter((t) => t !== PRIVATE_TAG && !t.startsWith('agent:')), ...tags])];
  const added = await adapter.add(bank, { text: body.text, dataset: body.dataset, tags: allTags, metadata: body.metadata, document_id: body.document_id, agent: identity.agent });
  deps.publish({ type: 'memory.added', source: `memory:${bank}`, message: `memory ${added.id} added to ${bank}`, data: { bank, id: added.id, agent: identity.agent, private: identity.private } });
  deps.record({ action: 'memory.add', actor, target: bank, details: { id: added.id, agent: identity.agent, private: identity.private, dataset: body.dataset ?? null, engine: adapter.engine } });
  return added;
}

export async function searchVia(adapter: MemoryEngineAdapter, deps: DelegateDeps, identity: MemoryIdentity, body: MemorySearchRequest): Promise<{ items: MemoryItem[] }> {
  const perBank = await adapter.search(readBanks(identity, deps.config().svc.memory.unified_bank), body, identity);
  return { items: fuseBanks(perBank).slice(0, body.limit) };
}

/** One page over the banks (the cursor is `bank@offset`, the offset the adapter's own). */
export async function listVia(adapter: MemoryEngineAdapter, deps: DelegateDeps, identity: MemoryIdentity, q: { dataset?: string; bank?: string; cursor?: string; limit: number }): Promise<MemoryListAnswer> {
  const banks = q.bank !== undefined ? [checkBankId(q.bank)] : readBanks(identity, deps.config().svc.memory.unified_bank);
  let { bankAt, offset } = parseListCursor(banks, q.cursor);
  const items: MemoryItem[] = [];
  for (; bankAt < banks.length; bankAt++, offset = 0) {
    const bank = banks[bankAt]!;
    for (let next: number | null = offset; next !== null && items.length < q.limit;) {
      const page = await adapter.list(bank, { dataset: q.dataset, offset: next, limit: q.limit - items.length }, identity);
      items.push(...page.items);
      next = page.next;
      if (items.length >= q.limit) return { items, next_cursor: next === null ? (bankAt + 1 < banks.length ? `${banks[bankAt + 1]}@0` : null) : `${bank}@${next}` };
    }
  }
  return { items, next_cursor: null };
}

export async function deleteVia(adapter: MemoryEngineAdapter, deps: DelegateDeps, identity: MemoryIdentity, body: MemoryDeleteRequest, actor: string): Promise<MemoryDeleteAnswer> {
  const banks = readBanks(identity, deps.config().svc.memory.unified_bank);
  const { ids } = body;
  if (ids === undefined) throw new SvcError('memory.engine_unsupported', `the ${adapter.engine} engine deletes by ids only: send ids`, { engine: adapter.engine, field: 'ids' });
  const counts = await Promise.all(banks.map((bank) => adapter.delete(bank, ids, identity)));
  const deleted = counts.reduce((a, b) => a + b, 0);
  deps.publish({ type: 'memory.deleted', source: 'memory', message: `${deleted} memories deleted`, data: { banks, ids, deleted, agent: identity.agent } });
  deps.record({ action: 'memory.delete', actor, target: banks.join(','), details: { ids, deleted, agent: identity.agent, engine: adapter.engine } });
  return { deleted };
}
