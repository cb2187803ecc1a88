// The mem0 engine: a mem0 server's REST API (mem0's OSS server: POST /memories,
// POST /search, GET /memories, GET and DELETE /memories/{id}; answers `{results:[...]}`).
// A bank is mem0's user_id; the agent is its agent_id; svc's tags, dataset and document id
// travel in the memory's metadata (svc_tags, svc_dataset, svc_document_id), so reads can keep
// another agent's private items away. Writes ask mem0 not to rewrite the text (infer: false).
import type { MemoryBankStats, MemoryBankView, MemoryItem } from '../../protocol/memory.js';
import { MemoryError } from '../../protocol/errors.js';
import type { MemoryIdentity } from '../identity.js';
import { keep } from './hindsight-items.js';
import { JsonHttpClient, shapeError, throwForStatus } from './http.js';
import { daemonBank, type EngineAddItem, type EnginePage, type EngineRecall, type EngineReport, type EngineSearch, type MemoryEngineAdapter, type PassthroughAnswer, type PromoteAnswer } from './types.js';

const SVC_KEYS = ['svc_tags', 'svc_dataset', 'svc_document_id'];

function results(body: unknown, path: string): unknown[] {
  const value = Array.isArray(body) ? body : (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(value)) throw shapeError('mem0', path, 'no "results" array');
  return value;
}

function itemOf(raw: unknown, bank: string, path: string): MemoryItem {
  const r = raw as Record<string, unknown> | null;
  if (!r || typeof r !== 'object' || typeof r.id !== 'string' || typeof r.memory !== 'string') throw shapeError('mem0', path, 'a memory has no id or no text');
  const meta = r.metadata && typeof r.metadata === 'object' ? (r.metadata as Record<string, unknown>) : {};
  const tags = Array.isArray(meta.svc_tags) ? meta.svc_tags.filter((t): t is string => typeof t === 'string') : [];
  return {
    id: r.id, text: r.memory, timestamp: typeof r.created_at === 'string' ? r.created_at : '', dataset: typeof meta.svc_dataset === 'string' ? meta.svc_dataset : null,
    tags, source: 'mem0', metadata: Object.fromEntries(Object.entries(meta).filter(([k]) => !SVC_KEYS.includes(k))),
    score: typeof r.score === 'number' ? r.score : null, type: 'world', bank,
  };
}

export class Mem0Engine implements MemoryEngineAdapter {
  readonly engine = 'mem0';
  private readonly http: JsonHttpClient;

  constructor(baseUrl: string, apiKey: string | undefined) {
    this.http = new JsonHttpClient({ engine: 'mem0', baseUrl, apiKey, connectTimeoutMs: 3_000, timeoutMs: 120_000 });
  }

  async add(bank: string, item: EngineAddItem): Promise<{ id: string; timestamp: string }> {
    const metadata = { ...item.metadata, svc_tags: item.tags, ...(item.dataset !== undefined && { svc_dataset: item.dataset }), ...(item.document_id !== undefined && { svc_document_id: item.document_id }) };
    const body = { messages: [{ role: 'user', content: item.text }], user_id: bank, agent_id: item.agent, metadata, infer: false };
    const added = results(await this.http.json('POST', '/memories', body), '/memories');
    const first = added.find((r) => typeof (r as { id?: unknown } | null)?.id === 'string') as { id: string } | undefined;
    if (!first) throw shapeError('mem0', '/memories', 'no memory id in the answer (mem0 kept nothing)');
    return { id: first.id, timestamp: new Date().toISOString() };
  }

  async search(banks: readonly string[], q: EngineSearch, who: MemoryIdentity): Promise<MemoryItem[][]> {
    return Promise.all(banks.map(async (bank) => {
      const found = results(await this.http.json('POST', '/search', { query: q.query, user_id: bank, limit: q.limit * 4 }), '/search');
      return found.map((raw) => itemOf(raw, bank, '/search'))
        .filter((item) => keep(item, who, q) && (!q.tags || q.tags.some((t) => item.tags.includes(t)))).slice(0, q.limit);
    }));
  }

  recall(banks: readonly string[], q: EngineRecall, who: MemoryIdentity): Promise<MemoryItem[][]> {
    return this.search(banks, { query: q.query, limit: 50, dataset: q.dataset, tags: q.tags }, who);
  }

  /** mem0 lists a user's memories at once: svc pages over them. */
  async list(bank: string, q: { dataset?: string; offset: number; limit: number }, who: MemoryIdentity): Promise<EnginePage> {
    const path = `/memories?user_id=${encodeURIComponent(bank)}`;
    const all = results(await this.http.json('GET', path), '/memories').map((raw) => itemOf(raw, bank, '/memories'));
    const items: MemoryItem[] = [];
    let at = q.offset;
    for (; at < all.length && items.length < q.limit; at++) if (keep(all[at]!, who, q)) items.push(all[at]!);
    return { items, next: at < all.length ? at : null };
  }

  async delete(bank: string, ids: readonly string[], who: MemoryIdentity): Promise<number> {
    let deleted = 0;
    for (const id of ids) {
      const path = `/memories/${encodeURIComponent(id)}`;
      const found = await this.http.raw('GET', path);
      // mem0's server answers a missing id with null (or an error): nothing to delete.
      if (found.status === 404 || found.body === null || (found.status >= 500 && found.status < 600)) continue;
      throwForStatus('mem0', 'GET', path, found);
      const owner = (found.body as { user_id?: unknown }).user_id;
      if (owner !== undefined && owner !== bank) continue;
      if (!keep(itemOf(found.body, bank, path), who, {})) continue;
      await this.http.json('DELETE', path);
      deleted++;
    }
    return deleted;
  }

  /** mem0 has no bank list: the banks are the user ids svc writes, shared ones known. */
  async banks(): Promise<MemoryBankView[]> {
    return [daemonBank('shared', (await this.stats('shared')).items)];
  }

  async putBank(bank: string): Promise<MemoryBankView> {
    return daemonBank(bank, (await this.stats(bank)).items);
  }

  async deleteBank(bank: string): Promise<number> {
    const { items } = await this.stats(bank);
    await this.http.json('DELETE', `/memories?user_id=${encodeURIComponent(bank)}`);
    return items;
  }

  async stats(bank: string): Promise<MemoryBankStats> {
    const all = results(await this.http.json('GET', `/memories?user_id=${encodeURIComponent(bank)}`), '/memories');
    return { id: bank, items: all.length, dimension: null, bytes: 0 };
  }

  passthrough(): Promise<PassthroughAnswer> {
    return Promise.reject(new MemoryError('memory.engine_unsupported', 'the per-bank passthrough is the hindsight engine\'s; mem0 has no such paths', { engine: 'mem0' }));
  }

  async report(): Promise<EngineReport> {
    const features = { search: true, recall: true, rerank: true, graph: false };
    try {
      await this.http.json('GET', '/memories?user_id=shared', undefined, 2_000);
      return { reachable: true, version: null, features, banks_total: null };
    } catch (error) {
      return { reachable: false, version: null, features, banks_total: null, error: (error as Error).message };
    }
  }

  async promote(): Promise<PromoteAnswer> {
    return { promoted: false, changed: false, state: 'mem0', detail: 'only the hindsight engine has a degraded mode' };
  }

  async close(): Promise<void> {}
}
