// The Hindsight daemon's items and ours (docs/memory.md, "Hindsight"): a write is one retain item
// (content, document_id, context, metadata, tags, timestamp); what recall and list answer is
// read back into a MemoryItem. The document id is the item's id in svc (a delete is
// DELETE /documents/<id>); the dataset travels as the item's context. Hindsight's metadata
// is string to string, so other values are sent as JSON text.
import type { MemoryItem } from '../../protocol/memory.js';
import { visibleTo } from '../identity.js';
import { shapeError } from './http.js';
import type { MemoryIdentity } from '../identity.js';

export interface RetainItem {
  content: string;
  document_id: string;
  context?: string;
  metadata?: Record<string, string>;
  tags: string[];
  timestamp: string;
}

export function retainItem(text: string, documentId: string, timestamp: string, extra: { dataset?: string; tags: string[]; metadata?: Record<string, unknown> }): RetainItem {
  const metadata = extra.metadata && Object.fromEntries(Object.entries(extra.metadata).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  return { content: text, document_id: documentId, ...(extra.dataset !== undefined && { context: extra.dataset }), ...(metadata && { metadata }), tags: extra.tags, timestamp };
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** One result of recall or list; a result without text or id is the daemon's shape error. */
export function itemOf(raw: unknown, bank: string, score: number | null, path: string): MemoryItem {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw shapeError('hindsight', path, 'an item is not an object');
  const r = raw as Record<string, unknown>;
  const id = str(r.document_id) ?? str(r.id);
  if (typeof r.text !== 'string' || id === undefined) throw shapeError('hindsight', path, 'an item has no text or no id');
  const tags = Array.isArray(r.tags) ? r.tags.filter((t): t is string => typeof t === 'string') : [];
  const metadata = r.metadata !== null && typeof r.metadata === 'object' && !Array.isArray(r.metadata) ? (r.metadata as Record<string, unknown>) : {};
  return {
    id, text: r.text, timestamp: str(r.mentioned_at) ?? str(r.occurred_start) ?? str(r.date) ?? str(r.created_at) ?? '',
    dataset: str(r.context) ?? null, tags, source: 'hindsight', metadata, score,
    type: str(r.type) ?? str(r.fact_type) ?? 'world', bank,
  };
}

/** `body[key]` as an array of items, or the shape error. */
export function arrayField(body: unknown, key: string, path: string): unknown[] {
  const value = (body as Record<string, unknown> | null)?.[key];
  if (!Array.isArray(value)) throw shapeError('hindsight', path, `no "${key}" array`);
  return value;
}

export interface ItemFilter { dataset?: string; before?: string; after?: string }

/** What `who` may see, in the dataset and time window asked. */
export function keep(item: MemoryItem, who: MemoryIdentity, filter: ItemFilter): boolean {
  if (!visibleTo(who.agent, item.tags)) return false;
  if (filter.dataset !== undefined && item.dataset !== filter.dataset) return false;
  const at = Date.parse(item.timestamp);
  if (filter.before !== undefined && !(at < Date.parse(filter.before))) return false;
  if (filter.after !== undefined && !(at > Date.parse(filter.after))) return false;
  return true;
}

/** The daemon answers best first without a score svc can compare: rank order becomes one. */
export const rankScore = (at: number) => 1 / (1 + at);
