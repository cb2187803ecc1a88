import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION } from './migrations.js';
import { lowWater } from '../lib/prune-oldest.js';
import { ResponseStore, STORED_RESPONSE_MAX_BYTES, type ResponsePrune, type ResponseStoreOptions } from './responses-store.js';
import { ActivityLog } from './store.js';

const opened: Array<{ close(): void }> = [];
afterEach(() => opened.splice(0).forEach((s) => s.close()));

function activityFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-responses-')), 'activity.db');
  opened.push(ActivityLog.open(path, { enabled: true, retentionDays: 30, maxRows: null, maxBytes: 64 * 1024 * 1024 }));
  return path;
}

function openStore(options: ResponseStoreOptions = {}, path = activityFile()): { store: ResponseStore; path: string; prunes: ResponsePrune[] } {
  const prunes: ResponsePrune[] = [];
  const store = ResponseStore.open(path, { onPrune: (p) => prunes.push(p), ...options });
  opened.push(store);
  return { store, path, prunes };
}

const input = [{ id: 'msg_1', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }];
const response = { id: 'resp_1', object: 'response', output: [] };
const answer = (id: string) => ({ id, object: 'response', output: [{ id: `msg_out_${id}`, type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] }] });

describe('stored responses', () => {
  it('keeps a response for its ttl and forgets it after', () => {
    let now = 1_000_000;
    const { store, prunes } = openStore({ now: () => now });
    expect(store.put('resp_1', input, response, 60)).toBe(true);
    expect(store.get('resp_1')).toMatchObject({ id: 'resp_1', input, response, createdAt: 1_000_000, expiresAt: 1_060_000 });
    expect(store.item('msg_1')).toEqual(input[0]);
    now += 59_999;
    expect(store.get('resp_1')).not.toBeNull();
    now += 1;
    expect(store.get('resp_1')).toBeNull();
    expect(store.item('msg_1')).toBeUndefined();
    expect(store.delete('resp_1')).toBe(false); // expired is gone, for delete too
    expect(store.prune()).toBe(1);
    expect(store.held()).toEqual({ rows: 0, bytes: 0 });
    expect(prunes).toEqual([{ reason: 'expired', removed: 1, rows: 0, bytes: 0 }]);
  });

  it('stores nothing with a ttl of 0, a record over the cap, or one larger than the whole store may be', () => {
    const { store } = openStore({ bounds: () => ({ maxRows: 100, maxBytes: 4096 }) });
    expect(store.put('resp_0', input, response, 0)).toBe(false);
    expect(store.get('resp_0')).toBeNull();
    const huge = [{ id: 'msg_2', type: 'message', text: 'x'.repeat(STORED_RESPONSE_MAX_BYTES) }];
    expect(store.put('resp_big', huge, response, 60)).toBe(false);
    expect(store.put('resp_5k', [{ id: 'msg_3', type: 'message', text: 'x'.repeat(5000) }], response, 60)).toBe(false);
    expect(store.get('resp_5k')).toBeNull();
    expect(store.held()).toEqual({ rows: 0, bytes: 0 });
  });

  it('deletes on request', () => {
    const { store } = openStore();
    store.put('resp_1', input, response, 60);
    expect(store.item('msg_1')).toEqual(input[0]);
    expect(store.delete('resp_1')).toBe(true);
    expect(store.get('resp_1')).toBeNull();
    expect(store.item('msg_1')).toBeUndefined();
    expect(store.delete('resp_1')).toBe(false);
    expect(store.held()).toEqual({ rows: 0, bytes: 0 });
  });

  it('finds an item of a later turn after the turn it first stood in was deleted', () => {
    const { store } = openStore();
    store.put('resp_a', input, answer('resp_a'), 60);
    // The second turn carries the first's conversation (input and output) as its history.
    store.put('resp_b', [...input, ...answer('resp_a').output, { id: 'msg_2', type: 'message', role: 'user', content: [] }], answer('resp_b'), 60);
    expect(store.item('msg_out_resp_a')).toEqual(answer('resp_a').output[0]);
    expect(store.delete('resp_a')).toBe(true);
    expect(store.item('msg_out_resp_a')).toEqual(answer('resp_a').output[0]);
    expect(store.item('msg_out_resp_b')).toEqual(answer('resp_b').output[0]);
  });

  it('keeps each item once: the references hold no item text', () => {
    const { store, path } = openStore();
    store.put('resp_1', input, answer('resp_1'), 60);
    const db = new Database(path, { readonly: true });
    opened.push(db);
    expect(db.prepare('SELECT id, response_id, source, position FROM response_item_refs ORDER BY source').all()).toEqual([
      { id: 'msg_1', response_id: 'resp_1', source: 'input', position: 0 },
      { id: 'msg_out_resp_1', response_id: 'resp_1', source: 'output', position: 0 },
    ]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'response_items'").get()).toBeUndefined();
  });

  it('leaves the activity schema version alone, so an older svc still opens the file', () => {
    const { path } = openStore();
    const db = new Database(path, { readonly: true });
    opened.push(db);
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'responses'").get()).toEqual({ name: 'responses' });
  });
});

describe('the bounds of stored responses', () => {
  it('past the row cap removes the oldest until a tenth of the cap is free, and reports it', () => {
    let now = 1;
    const { store, prunes } = openStore({ now: () => now++, bounds: () => ({ maxRows: 10, maxBytes: 1 << 30 }) });
    for (let i = 1; i <= 10; i++) store.put(`resp_${i}`, input, answer(`resp_${i}`), 60);
    expect(prunes).toEqual([]);
    store.put('resp_11', input, answer('resp_11'), 60);
    expect(store.get('resp_1')).toBeNull();
    expect(store.get('resp_2')).toBeNull();
    expect(store.get('resp_3')).not.toBeNull();
    expect(store.item('msg_out_resp_1')).toBeUndefined();
    expect(store.held().rows).toBe(9);
    expect(prunes).toEqual([{ reason: 'max_rows', removed: 2, rows: 9, bytes: store.held().bytes }]);
  });

  it('past the size cap removes the oldest, never the row just written', () => {
    let now = 1;
    const big = (n: number) => [{ id: `msg_${n}`, type: 'message', text: 'x'.repeat(3000) }];
    const { store, prunes } = openStore({ now: () => now++, bounds: () => ({ maxRows: 1000, maxBytes: 10_000 }) });
    for (let i = 1; i <= 3; i++) store.put(`resp_${i}`, big(i), response, 60);
    expect(store.held().rows).toBe(3);
    store.put('resp_4', big(4), response, 60);
    expect(store.get('resp_4')).not.toBeNull();
    expect(store.held().bytes).toBeLessThanOrEqual(lowWater(10_000));
    expect(prunes.at(-1)).toMatchObject({ reason: 'max_bytes', removed: 2, rows: 2 });
    expect(store.get('resp_2')).toBeNull();
    expect(store.get('resp_3')).not.toBeNull();
  });

  it('counts what an earlier gateway stored, and prunes at open when a cap was lowered', () => {
    const path = activityFile();
    const first = openStore({}, path).store;
    for (let i = 1; i <= 5; i++) first.put(`resp_${i}`, input, answer(`resp_${i}`), 60);
    const held = first.held();
    first.close();
    opened.splice(opened.indexOf(first), 1);
    const { store, prunes } = openStore({ bounds: () => ({ maxRows: 3, maxBytes: 1 << 30 }) }, path);
    expect(prunes).toEqual([{ reason: 'max_rows', removed: 3, rows: 2, bytes: expect.any(Number) }]);
    expect(store.held().rows).toBe(2);
    expect(store.held().bytes).toBeLessThan(held.bytes);
  });
});

describe('a file an older svc wrote', () => {
  it('gets sizes and item references, and loses the second copy of every item', () => {
    const path = activityFile();
    const db = new Database(path);
    db.exec(`
      CREATE TABLE responses (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, input TEXT NOT NULL, response TEXT NOT NULL);
      CREATE TABLE response_items (id TEXT PRIMARY KEY, response_id TEXT NOT NULL, expires_at INTEGER NOT NULL, item TEXT NOT NULL);`);
    const later = Date.now() + 60_000;
    db.prepare('INSERT INTO responses VALUES (?, ?, ?, ?, ?)').run('resp_old', 1, later, JSON.stringify(input), JSON.stringify(answer('resp_old')));
    db.prepare('INSERT INTO response_items VALUES (?, ?, ?, ?)').run('msg_1', 'resp_old', later, JSON.stringify(input[0]));
    db.close();
    const { store } = openStore({}, path);
    expect(store.item('msg_1')).toEqual(input[0]);
    expect(store.item('msg_out_resp_old')).toEqual(answer('resp_old').output[0]);
    expect(store.held()).toEqual({ rows: 1, bytes: JSON.stringify(input).length + JSON.stringify(answer('resp_old')).length });
    const check = new Database(path, { readonly: true });
    opened.push(check);
    expect(check.prepare("SELECT name FROM sqlite_master WHERE name = 'response_items'").get()).toBeUndefined();
  });
});
