import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ActivityQuery, ActivityRow, SortKey, SortOrder } from './query.js';
import { ROW_DETAILS_MAX_BYTES, ROW_MESSAGE_MAX_CHARS } from './row-size.js';
import type { ActivityOptions, ActivityPrune } from './store.js';
import { ActivityLog } from './store.js';

const DEFAULTS: ActivityOptions = { enabled: true, retentionDays: 30, maxRows: 50_000, maxBytes: 64 * 1024 * 1024 };
const opened: ActivityLog[] = [];

function dbPath(): string {
  // A nested path also checks that open() creates the parent directory.
  return join(mkdtempSync(join(tmpdir(), 'svc-activity-')), 'state', 'activity.db');
}

function openLog(path = dbPath(), options: Partial<ActivityOptions> = {}, onPrune?: (prune: ActivityPrune) => void): ActivityLog {
  const log = ActivityLog.open(path, { ...DEFAULTS, ...options }, onPrune);
  opened.push(log);
  return log;
}

function allRows(log: ActivityLog, query: ActivityQuery = {}): ActivityRow[] {
  return log.query({ ...query, limit: 500 }).items;
}

const at = (minute: number) => new Date(Date.UTC(2024, 4, 1, 12, minute));

afterEach(() => {
  for (const log of opened.splice(0)) {
    try { log.close(); } catch { /* already closed by the test */ }
  }
  vi.restoreAllMocks();
});

describe('ActivityLog', () => {
  it('opens in WAL mode', () => {
    const path = dbPath();
    openLog(path);
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    db.close();
  });

  it('records entries with defaults and reads them back', () => {
    const log = openLog();
    const id = log.record({ action: 'slot.load', target: 'chat', details: { port: 8081 }, requestId: 'req-1', ts: at(0) });
    log.record({ action: 'slot.state', kind: 'event', actor: 'dashboard', outcome: 'error', message: 'boom' });
    const rows = allRows(log, { sort: 'ts', order: 'asc' });
    expect(rows[0]).toEqual({
      id, ts: '2024-05-01T12:00:00.000Z', kind: 'action', action: 'slot.load', target: 'chat', actor: 'system',
      outcome: 'ok', message: '', details: { port: 8081 }, request_id: 'req-1',
    });
    expect(rows[1]).toMatchObject({ kind: 'event', actor: 'dashboard', outcome: 'error', message: 'boom', details: {}, request_id: null });
    expect(rows[1]?.ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('filters by exact action, action prefix, target, actor, kind, outcome and time range', () => {
    const log = openLog();
    log.record({ action: 'settings.update', target: 'svc', ts: at(0) });
    log.record({ action: 'settings', target: 'svc', ts: at(1) });
    log.record({ action: 'settingsX.update', target: 'svc', ts: at(2) });
    log.record({ action: 'slot.load', target: 'chat', actor: 'dashboard', ts: at(3) });
    log.record({ action: 'slot.state', target: 'chat', kind: 'event', outcome: 'error', ts: at(4) });
    const actions = (query: ActivityQuery) => allRows(log, { ...query, order: 'asc' }).map((r) => r.action);
    expect(actions({ action: 'settings' })).toEqual(['settings']);
    expect(actions({ action: 'settings.*' })).toEqual(['settings.update']);
    expect(actions({ action: 'slot.*' })).toEqual(['slot.load', 'slot.state']);
    expect(actions({ action: 'set%.*' })).toEqual([]);
    expect(actions({ target: 'chat' })).toEqual(['slot.load', 'slot.state']);
    expect(actions({ actor: 'dashboard' })).toEqual(['slot.load']);
    expect(actions({ kind: 'event' })).toEqual(['slot.state']);
    expect(actions({ outcome: 'error' })).toEqual(['slot.state']);
    expect(actions({ outcome: 'ok', target: 'chat' })).toEqual(['slot.load']);
    expect(actions({ since: at(1).toISOString(), until: at(3).toISOString() })).toEqual(['settings', 'settingsX.update']);
  });

  describe('keyset pagination over 23 rows with repeated values', () => {
    const actions = ['slot.load', 'settings.update', 'slot.unload'];
    const targets = ['a', 'b', 'c', 'd'];
    const cases = (['ts', 'action', 'target'] as SortKey[]).flatMap((sort) => (['asc', 'desc'] as SortOrder[]).map((order) => [sort, order] as const));

    it.each(cases)('sort=%s order=%s visits every row exactly once, in order', (sort, order) => {
      const log = openLog();
      for (let i = 0; i < 23; i += 1) {
        log.record({ action: actions[i % 3] ?? '', target: targets[i % 4] ?? '', ts: at(Math.floor(i / 4)) });
      }
      const seen: ActivityRow[] = [];
      let cursor: string | undefined;
      for (let pages = 1; ; pages += 1) {
        const page = log.query({ sort, order, limit: 5, cursor });
        seen.push(...page.items);
        if (page.next_cursor === null) break;
        expect(page.items).toHaveLength(5);
        expect(pages).toBeLessThan(5);
        cursor = page.next_cursor;
      }
      const sign = order === 'asc' ? 1 : -1;
      const expected = allRows(log).sort((x, y) => sign * (x[sort] < y[sort] ? -1 : x[sort] > y[sort] ? 1 : x.id - y.id));
      expect(seen.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      expect(new Set(seen.map((r) => r.id)).size).toBe(23);
    });
  });

  it('redacts secret-named keys at any depth, inside arrays too', () => {
    const log = openLog();
    log.record({
      action: 'settings.update',
      details: {
        api_key: 'k1', apiKey: 'k2', refresh_token: 't', name: 'keep', tokens_used: 5, monkey: 'keep',
        upstream: { Authorization: 'Bearer x', headers: [{ client_secret: 's', value: 'keep' }], password_hash: 'h' },
      },
    });
    expect(allRows(log)[0]?.details).toEqual({
      api_key: '***', apiKey: '***', refresh_token: '***', name: 'keep', tokens_used: 5, monkey: 'keep',
      upstream: { Authorization: '***', headers: [{ client_secret: '***', value: 'keep' }], password_hash: '***' },
    });
  });

  it('records nothing while disabled, and resumes when re-enabled', () => {
    const log = openLog(dbPath(), { enabled: false });
    expect(log.record({ action: 'slot.load' })).toBeUndefined();
    expect(allRows(log)).toEqual([]);
    log.setOptions({ ...DEFAULTS, enabled: true });
    expect(log.record({ action: 'slot.load' })).toBeTypeOf('number');
    expect(allRows(log)).toHaveLength(1);
  });

  it('never throws from record: a failed write is one stderr line', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const log = openLog();
    log.close();
    expect(log.record({ action: 'slot.load' })).toBeUndefined();
    expect(stderr).toHaveBeenCalledTimes(1);
    expect(String(stderr.mock.calls[0]?.[0])).toMatch(/^svc: activity log write failed: .+\n$/);
  });

  it('prunes rows older than the retention period', () => {
    const log = openLog(dbPath(), { retentionDays: 7 });
    const now = new Date('2024-05-31T00:00:00.000Z');
    log.record({ action: 'old', ts: new Date('2024-05-01T00:00:00.000Z') });
    log.record({ action: 'edge', ts: new Date('2024-05-24T00:00:00.000Z') });
    log.record({ action: 'new', ts: new Date('2024-05-30T00:00:00.000Z') });
    expect(log.prune(now)).toBe(1);
    expect(allRows(log).map((r) => r.action).sort()).toEqual(['edge', 'new']);
  });

  it('prunes the oldest rows beyond max_rows, and none when the cap is null', () => {
    const log = openLog(dbPath(), { maxRows: null, retentionDays: 100_000 });
    for (let i = 0; i < 10; i += 1) log.record({ action: `a${i}`, ts: at(10 - i) });
    expect(log.prune()).toBe(0);
    log.setOptions({ ...DEFAULTS, retentionDays: 100_000, maxRows: 4 });
    expect(log.prune()).toBe(6);
    // Oldest by timestamp, not by insertion: a0 was inserted first but is the newest.
    expect(allRows(log).map((r) => r.action)).toEqual(['a0', 'a1', 'a2', 'a3']);
  });

  it('prunes by itself every 500 inserts and on open', () => {
    const path = dbPath();
    const log = openLog(path, { maxRows: 100 });
    for (let i = 0; i < 499; i += 1) log.record({ action: 'tick' });
    expect(allRows(log)).toHaveLength(499);
    log.record({ action: 'tick' });
    expect(allRows(log)).toHaveLength(100);
    for (let i = 0; i < 50; i += 1) log.record({ action: 'tick' });
    log.close();
    expect(allRows(openLog(path, { maxRows: 100 }))).toHaveLength(100);
  });

  it('keeps rows across a reopen without re-running migrations', () => {
    const path = dbPath();
    const first = openLog(path);
    first.record({ action: 'slot.load' });
    first.close();
    // Migration 1 is a bare CREATE TABLE, so running it again would make this open throw.
    const second = openLog(path);
    expect(allRows(second).map((r) => r.action)).toEqual(['slot.load']);
    second.record({ action: 'slot.unload' });
    expect(allRows(second)).toHaveLength(2);
  });

  it('refuses a database written by a newer svc', () => {
    const path = dbPath();
    openLog(path).close();
    const db = new Database(path);
    db.pragma('user_version = 99');
    db.close();
    expect(() => ActivityLog.open(path, DEFAULTS)).toThrow(/schema version 99.*newer svc/);
  });
});

describe('the bounds of the activity log', () => {
  it('past max_mb removes the oldest rows until a tenth of it is free, with max_rows off too', () => {
    const prunes: ActivityPrune[] = [];
    const log = openLog(dbPath(), { maxRows: null, retentionDays: 100_000, maxBytes: 20_000 }, (p) => prunes.push(p));
    const note = 'x'.repeat(900); // about 1 KB a row
    let written = 0;
    while (prunes.length === 0 && written < 100) log.record({ action: `a${written}`, message: note, ts: at(written++) });
    expect(written).toBeGreaterThan(15); // 20 kB of rows of about 1 kB: the cap, not sooner
    expect(prunes).toEqual([{ reason: 'max_bytes', removed: expect.any(Number), ...log.size() }]);
    expect(log.size().bytes).toBeLessThanOrEqual(18_000);
    const kept = allRows(log, { sort: 'ts', order: 'asc' }).map((r) => r.action);
    expect(kept.at(-1)).toBe(`a${written - 1}`);
    expect(kept[0]).toBe(`a${written - kept.length}`); // the oldest went, none other
    expect(prunes[0]!.removed).toBe(written - kept.length);
  });

  it('reports retention and row-cap prunes, and counts the rows an earlier gateway left', () => {
    const path = dbPath();
    const first = openLog(path, { maxRows: null, retentionDays: 7 });
    first.record({ action: 'old', ts: new Date(Date.now() - 30 * 24 * 3600 * 1000) });
    for (let i = 0; i < 6; i += 1) first.record({ action: `a${i}` });
    const before = first.size();
    first.close();
    const prunes: ActivityPrune[] = [];
    const log = openLog(path, { maxRows: 4, retentionDays: 7 }, (p) => prunes.push(p));
    expect(prunes.map((p) => [p.reason, p.removed])).toEqual([['expired', 1], ['max_rows', 2]]);
    expect(log.size().rows).toBe(4);
    expect(log.size().bytes).toBeLessThan(before.bytes);
  });

  it('keeps a row\'s huge details as a note of their size and keys, and cuts a huge message', () => {
    const log = openLog();
    log.record({ action: 'settings.update', message: 'm'.repeat(ROW_MESSAGE_MAX_CHARS + 10), details: { value: 'v'.repeat(ROW_DETAILS_MAX_BYTES), keys: ['a'] } });
    const [row] = allRows(log);
    expect(row!.details).toEqual({ truncated: true, bytes: expect.any(Number), keys: ['value', 'keys'], note: expect.stringContaining('not kept') });
    expect(row!.message).toHaveLength(ROW_MESSAGE_MAX_CHARS + 1);
    expect(log.size().bytes).toBeLessThan(ROW_MESSAGE_MAX_CHARS * 2 + 1024);
  });
});
