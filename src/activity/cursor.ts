// Keyset-pagination cursors. A cursor names the last row of a page by its sort value and
// id; it also carries the sort key and order it was issued for, because the same position
// means nothing under a different ordering and silently mixing them would skip rows.

export const SORT_KEYS = ['ts', 'action', 'target'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortOrder = 'asc' | 'desc';

export interface CursorPosition {
  readonly sort: SortKey;
  readonly order: SortOrder;
  readonly lastValue: string;
  readonly lastId: number;
}

export function isSortKey(value: unknown): value is SortKey {
  return typeof value === 'string' && (SORT_KEYS as readonly string[]).includes(value);
}

export function isSortOrder(value: unknown): value is SortOrder {
  return value === 'asc' || value === 'desc';
}

export function encodeCursor(position: CursorPosition): string {
  const { sort, order, lastValue, lastId } = position;
  return Buffer.from(JSON.stringify([sort, order, lastValue, lastId]), 'utf8').toString('base64url');
}

/** The position a cursor names, or undefined for anything this module did not issue. */
export function decodeCursor(cursor: string): CursorPosition | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(decoded) || decoded.length !== 4) return undefined;
  const [sort, order, lastValue, lastId] = decoded as unknown[];
  if (!isSortKey(sort) || !isSortOrder(order) || typeof lastValue !== 'string') return undefined;
  if (typeof lastId !== 'number' || !Number.isSafeInteger(lastId)) return undefined;
  return { sort, order, lastValue, lastId };
}

/** Why a decoded cursor cannot continue a listing sorted this way, or undefined when it can. */
export function cursorMismatch(position: CursorPosition, sort: SortKey, order: SortOrder): string | undefined {
  if (position.sort === sort && position.order === order) return undefined;
  return (
    `this cursor continues a listing with sort=${position.sort} order=${position.order}, ` +
    `not sort=${sort} order=${order}; start again without a cursor`
  );
}
