// GET /v1/responses/{id}/input_items: a page of a stored response's input items, in OpenAI's
// list shape, with its query (limit 1-100, default 20; order asc or desc, default desc; after
// and before an item id) checked like every other request field.
import { RequestError } from '../../protocol/errors.js';
import type { ResponseItem } from './index.js';

export interface ItemsPage {
  object: 'list';
  data: ResponseItem[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

const invalid = (path: string, message: string) => new RequestError('request.invalid', `'${path}' ${message}`, { problems: [{ path, message }] });

function limitOf(value: unknown): number {
  if (value === undefined) return 20;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit', 'must be an integer from 1 to 100');
  return limit;
}

/** Items after (or before) the item with the given id, in the asked order. */
function cursorSlice(items: ResponseItem[], query: Record<string, unknown>): ResponseItem[] {
  let out = items;
  for (const key of ['after', 'before'] as const) {
    const id = query[key];
    if (id === undefined) continue;
    const at = out.findIndex((item) => item.id === id);
    if (typeof id !== 'string' || at < 0) throw invalid(key, `names no input item of this response (${JSON.stringify(id)})`);
    out = key === 'after' ? out.slice(at + 1) : out.slice(0, at);
  }
  return out;
}

export function inputItemsPage(items: readonly ResponseItem[], query: Record<string, unknown>): ItemsPage {
  const order = query.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw invalid('order', 'must be "asc" or "desc"');
  const limit = limitOf(query.limit);
  const ordered = order === 'desc' ? [...items].reverse() : [...items];
  const rest = cursorSlice(ordered, query);
  const data = rest.slice(0, limit);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: rest.length > limit };
}
