import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { ActivityQuery, StoredActivityRow } from './query.js';
import { buildActivitySql, parseActivityQuery, toActivityPage } from './query.js';

function problemsOf(raw: Record<string, unknown>) {
  const result = parseActivityQuery(raw);
  return 'problems' in result ? result.problems : [];
}

function queryOf(raw: Record<string, unknown>): ActivityQuery {
  const result = parseActivityQuery(raw);
  if ('problems' in result) throw new Error(JSON.stringify(result.problems));
  return result.query;
}

const row = (id: number, action: string, ts = '2024-05-01T00:00:00.000Z'): StoredActivityRow => ({
  id, ts, kind: 'action', action, target: 't', actor: 'system', outcome: 'ok', message: '', details: '{"a":1}', request_id: null,
});

describe('parseActivityQuery', () => {
  it('accepts an empty query and leaves defaults to the builder', () => {
    expect(queryOf({})).toEqual({});
    expect(buildActivitySql({}).sql).toMatch(/ORDER BY ts DESC, id DESC LIMIT \?$/);
    expect(buildActivitySql({}).params).toEqual([51]);
  });

  it('parses every parameter and normalizes timestamps to UTC milliseconds', () => {
    expect(queryOf({
      action: 'slot.load', target: 'chat', actor: 'dashboard', kind: 'event', outcome: 'error', since: '2024-05-01T02:00:00+02:00',
      until: '2024-05-02', sort: 'action', order: 'asc', limit: '500', cursor: '',
    })).toEqual({
      action: 'slot.load', target: 'chat', actor: 'dashboard', kind: 'event', outcome: 'error', since: '2024-05-01T00:00:00.000Z',
      until: '2024-05-02T00:00:00.000Z', sort: 'action', order: 'asc', limit: 500,
    });
  });

  it('reports every bad parameter at once, each naming its parameter', () => {
    const problems = problemsOf({
      sort: 'id; drop table', order: 'up', limit: '0', since: 'yesterday', until: '2024-05-01T12:00:00', kind: 'x',
      cursor: '!!!', actor: ['a', 'b'], outcome: 'warn',
    });
    expect(problems.map((p) => p.path).sort()).toEqual(['actor', 'cursor', 'kind', 'limit', 'order', 'outcome', 'since', 'sort', 'until']);
    expect(problems).toContainEqual({ path: 'sort', message: 'expected one of ts, action, target; got "id; drop table"' });
    expect(problems).toContainEqual({ path: 'order', message: 'expected one of asc, desc; got "up"' });
  });

  it.each(['abc', '501', '-1', '1.5', '10000'])('rejects limit=%s', (limit) => {
    expect(problemsOf({ limit })).toEqual([{ path: 'limit', message: `expected an integer from 1 to 500; got "${limit}"` }]);
  });

  it('rejects a time range that ends before it starts', () => {
    expect(problemsOf({ since: '2024-05-02', until: '2024-05-01' }).map((p) => p.path)).toEqual(['until']);
  });
});

describe('buildActivitySql', () => {
  it('matches an action exactly unless it ends in .*', () => {
    expect(buildActivitySql({ action: 'settings.update' })).toMatchObject({ params: ['settings.update', 51] });
    expect(buildActivitySql({ action: 'settings.update' }).sql).toContain('WHERE action = ?');
  });

  it('turns x.* into a literal prefix comparison, not LIKE', () => {
    const { sql, params } = buildActivitySql({ action: 'set_%.*', limit: 5 });
    expect(sql).toContain('WHERE substr(action, 1, ?) = ?');
    expect(sql).not.toMatch(/LIKE/i);
    expect(params).toEqual([6, 'set_%.', 6]);
  });

  it('counts the prefix in code points, as SQLite substr does', () => {
    expect(buildActivitySql({ action: '😀.*' }).params.slice(0, 2)).toEqual([2, '😀.']);
  });

  it('binds every filter value and puts only whitelisted names in the SQL', () => {
    const { sql, params } = buildActivitySql({
      target: "x' OR 1=1 --", actor: 'a', kind: 'event', since: '2024-01-01T00:00:00.000Z', until: '2024-02-01T00:00:00.000Z', sort: 'target', order: 'asc',
    });
    expect(sql).not.toContain('OR 1=1');
    expect(sql).toContain('ORDER BY target ASC, id ASC');
    expect(params).toEqual(["x' OR 1=1 --", 'a', 'event', '2024-01-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z', 51]);
  });
});

describe('cursors', () => {
  it('round-trip from a page to the next query', () => {
    const query: ActivityQuery = { sort: 'action', order: 'asc', limit: 2 };
    const page = toActivityPage([row(4, 'a.x'), row(7, 'b.y'), row(9, 'c.z')], query);
    expect(page.items.map((r) => r.id)).toEqual([4, 7]);
    expect(page.items[0]?.details).toEqual({ a: 1 });
    expect(page.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(page.next_cursor ?? '')).toEqual({ sort: 'action', order: 'asc', lastValue: 'b.y', lastId: 7 });

    const next = queryOf({ sort: 'action', order: 'asc', limit: '2', cursor: page.next_cursor });
    const { sql, params } = buildActivitySql(next);
    expect(sql).toContain('WHERE (action, id) > (?, ?)');
    expect(params).toEqual(['b.y', 7, 3]);
  });

  it('give no next cursor on the last page', () => {
    expect(toActivityPage([row(1, 'a'), row(2, 'b')], { limit: 2 }).next_cursor).toBeNull();
  });

  it('are rejected when used with a different sort or order', () => {
    const cursor = encodeCursor({ sort: 'ts', order: 'desc', lastValue: '2024-05-01T00:00:00.000Z', lastId: 3 });
    expect(problemsOf({ cursor })).toEqual([]);
    expect(problemsOf({ cursor, sort: 'action' })).toEqual([
      { path: 'cursor', message: expect.stringContaining('sort=ts order=desc, not sort=action order=desc') },
    ]);
    expect(problemsOf({ cursor, order: 'asc' }).map((p) => p.path)).toEqual(['cursor']);
    expect(() => buildActivitySql({ cursor, sort: 'target' })).toThrow(/sort=ts/);
  });

  it('reject tampered or foreign values', () => {
    const forged = Buffer.from(JSON.stringify(['id', 'desc', 'x', 1])).toString('base64url');
    for (const cursor of [forged, 'bm90IGpzb24', Buffer.from('[1,2]').toString('base64url')]) {
      expect(problemsOf({ cursor }).map((p) => p.path)).toEqual(['cursor']);
    }
  });
});
