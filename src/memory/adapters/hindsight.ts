// The Hindsight daemon's REST API (docs/memory.md, "Hindsight"), reached as the daemon is up: every bank
// path under /v1/default/banks/{bank}; the boot probe GET /health (2 s; 401/403 pass, a 5xx
// fails); 3 s to connect and 120 s for an answer. Search is recall with the over-fetch
// rules (max_tokens = max(256, limit*256, *4 with before/after)), list over-fetches
// max(limit*2, 50); both keep only what the caller may see. The degraded mode around this
// is hindsight-engine.ts.
import type { MemoryBankStats, MemoryBankView, MemoryItem } from '../../protocol/memory.js';
import { DEFAULT_RECALL_TYPES } from '../recall.js';
import type { MemoryIdentity } from '../identity.js';
import { JsonHttpClient, shapeError, throwForStatus } from './http.js';
import { arrayField, itemOf, keep, rankScore, type RetainItem } from './hindsight-items.js';
import { checkPassthroughPath } from './passthrough.js';
import { daemonBank, type EnginePage, type EngineRecall, type EngineReport, type EngineSearch, type PassthroughAnswer } from './types.js';

export const HINDSIGHT_DEFAULT_URL = 'http://127.0.0.1:9177';
export const HINDSIGHT_DEFAULT_KEY = 'svc-local-noauth';

export interface HindsightOptions { baseUrl: string; apiKey: string; probeTimeoutMs: number }

const bankPath = (bank: string, rest = '') => `/v1/default/banks/${encodeURIComponent(bank)}${rest}`;

export class HindsightClient {
  readonly http: JsonHttpClient;

  constructor(private readonly options: HindsightOptions) {
    this.http = new JsonHttpClient({ engine: 'hindsight', baseUrl: options.baseUrl, apiKey: options.apiKey, connectTimeoutMs: 3_000, timeoutMs: 120_000 });
  }

  /** GET /health: up (2xx, or 401/403: a daemon that wants another key is there), or why not. */
  async probe(): Promise<{ ok: true } | { ok: false; reason: string }> {
    try {
      const { status } = await this.http.raw('GET', '/health', undefined, this.options.probeTimeoutMs);
      if (status < 500) return { ok: true };
      return { ok: false, reason: `GET /health answered ${status}` };
    } catch (error) {
      return { ok: false, reason: (error as Error).message };
    }
  }

  async retain(bank: string, item: RetainItem): Promise<{ operation_id?: string }> {
    const path = bankPath(bank, '/memories');
    const answer = await this.http.json('POST', path, { items: [item], async: true });
    if (answer === null || typeof answer !== 'object') throw shapeError('hindsight', path, 'not an object');
    const op = (answer as { operation_id?: unknown }).operation_id;
    return typeof op === 'string' ? { operation_id: op } : {};
  }

  private async recallRaw(bank: string, body: Record<string, unknown>): Promise<MemoryItem[]> {
    const path = bankPath(bank, '/memories/recall');
    const results = arrayField(await this.http.json('POST', path, body), 'results', path);
    return results.map((raw, at) => itemOf(raw, bank, rankScore(at), path));
  }

  search(banks: readonly string[], q: EngineSearch, who: MemoryIdentity): Promise<MemoryItem[][]> {
    const maxTokens = Math.max(256, q.limit * 256 * (q.before || q.after ? 4 : 1));
    return Promise.all(banks.map(async (bank) => (await this.recallRaw(bank, { query: q.query, max_tokens: maxTokens, ...(q.tags && { tags: q.tags, tags_match: 'any' }) }))
      .filter((item) => keep(item, who, q)).slice(0, q.limit)));
  }

  recall(banks: readonly string[], q: EngineRecall, who: MemoryIdentity): Promise<MemoryItem[][]> {
    const body = { query: q.query, max_tokens: q.max_tokens, types: q.types ?? DEFAULT_RECALL_TYPES, ...(q.tags && { tags: q.tags, tags_match: q.tags_match ?? 'any' }) };
    return Promise.all(banks.map(async (bank) => (await this.recallRaw(bank, body)).filter((item) => keep(item, who, q))));
  }

  async list(bank: string, q: { dataset?: string; offset: number; limit: number }, who: MemoryIdentity): Promise<EnginePage> {
    const fetchN = Math.max(q.limit * 2, 50);
    const path = bankPath(bank, `/memories/list?limit=${fetchN}&offset=${q.offset}`);
    const rows = arrayField(await this.http.json('GET', path), 'items', path);
    const items: MemoryItem[] = [];
    let consumed = 0;
    for (const raw of rows) {
      if (items.length >= q.limit) break;
      consumed++;
      const item = itemOf(raw, bank, null, path);
      if (keep(item, who, q)) items.push(item);
    }
    const done = consumed === rows.length && rows.length < fetchN;
    return { items, next: done ? null : q.offset + consumed };
  }

  /** One page of a bank's items as the daemon lists them, every agent's (svc memory migrate --from hindsight); `rows` how many it gave. */
  async page(bank: string, offset: number, limit: number): Promise<{ items: MemoryItem[]; rows: number }> {
    const path = bankPath(bank, `/memories/list?limit=${limit}&offset=${offset}`);
    const rows = arrayField(await this.http.json('GET', path), 'items', path);
    return { items: rows.map((raw) => itemOf(raw, bank, null, path)), rows: rows.length };
  }

  /** Deletes the documents `who` may see (GET first: another agent's private one is passed over). */
  async delete(bank: string, ids: readonly string[], who: MemoryIdentity): Promise<number> {
    let deleted = 0;
    for (const id of ids) {
      const path = bankPath(bank, `/documents/${encodeURIComponent(id)}`);
      const found = await this.http.raw('GET', path);
      if (found.status === 404) continue;
      throwForStatus('hindsight', 'GET', path, found);
      const tags = (found.body as { tags?: unknown } | null)?.tags;
      if (Array.isArray(tags) && !keep({ tags: tags.filter((t) => typeof t === 'string') } as MemoryItem, who, {})) continue;
      const gone = await this.http.raw('DELETE', path);
      if (gone.status === 404) continue;
      throwForStatus('hindsight', 'DELETE', path, gone);
      deleted++;
    }
    return deleted;
  }

  async banks(): Promise<MemoryBankView[]> {
    const banks = arrayField(await this.http.json('GET', '/v1/default/banks'), 'banks', '/v1/default/banks');
    return Promise.all(banks.map(async (raw) => {
      const id = (raw as { bank_id?: unknown } | null)?.bank_id;
      if (typeof id !== 'string') throw shapeError('hindsight', '/v1/default/banks', 'a bank has no bank_id');
      const created = (raw as { created_at?: unknown }).created_at;
      return daemonBank(id, (await this.stats(id)).items, typeof created === 'string' ? created : '');
    }));
  }

  async putBank(bank: string, body: Record<string, unknown>, method: 'PUT' | 'PATCH'): Promise<void> {
    await this.http.json(method, bankPath(bank), body);
  }

  async deleteBank(bank: string): Promise<number> {
    const { items } = await this.stats(bank);
    await this.http.json('DELETE', bankPath(bank));
    return items;
  }

  async stats(bank: string): Promise<MemoryBankStats> {
    const path = bankPath(bank, '/stats');
    const answer = (await this.http.json('GET', path)) as Record<string, unknown> | null;
    const items = answer?.total_documents ?? answer?.total_nodes;
    if (typeof items !== 'number') throw shapeError('hindsight', path, 'no total_documents');
    return { id: bank, items, dimension: null, bytes: 0 };
  }

  /** One allowlisted per-bank call, answered as the daemon answered (its errors mapped). */
  async passthrough(method: string, bank: string, subpath: string, query: string, body: unknown): Promise<PassthroughAnswer> {
    const rest = checkPassthroughPath(method, subpath);
    const path = bankPath(bank, `/${rest}${query ? `?${query}` : ''}`);
    const answer = await this.http.raw(method, path, body);
    throwForStatus('hindsight', method, path, answer);
    return answer;
  }

  async report(): Promise<EngineReport> {
    const features = { search: true, recall: true, rerank: true, graph: true };
    try {
      const version = (await this.http.json('GET', '/version', undefined, this.options.probeTimeoutMs)) as Record<string, unknown> | null;
      const name = version?.api_version ?? version?.version;
      const banks = await this.http.json('GET', '/v1/default/banks', undefined, this.options.probeTimeoutMs);
      const total = Array.isArray((banks as { banks?: unknown } | null)?.banks) ? (banks as { banks: unknown[] }).banks.length : null;
      return { reachable: true, version: typeof name === 'string' ? name : null, features, banks_total: total, state: 'healthy' };
    } catch (error) {
      return { reachable: false, version: null, features, banks_total: null, error: (error as Error).message };
    }
  }
}
