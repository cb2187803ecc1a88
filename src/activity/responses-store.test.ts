import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION } from './migrations.js';
import { ResponseStore, STORED_RESPONSE_MAX_BYTES } from './responses-store.js';
import { ActivityLog } from './store.js';

const opened: Array<{ close(): void }> = [];
afterEach(() => opened.splice(0).forEach((s) => s.close()));

function openStore(now: () => number): { store: ResponseStore; path: string } {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-responses-')), 'activity.db');
  opened.push(ActivityLog.open(path, { enabled: true, retentionDays: 30, maxRows: null }));
  const store = ResponseStore.open(path, now);
  opened.push(store);
  return { store, path };
}

const input = [{ id: 'msg_1', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }];
const response = { id: 'resp_1', object: 'response', output: [] };

describe('stored responses', () => {
  it('keeps a response for its ttl and forgets it after', () => {
    let now = 1_000_000;
    const { store } = openStore(() => now);
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
  });

  it('stores nothing with a ttl of 0 or a record over the cap', () => {
    const { store } = openStore(Date.now);
    expect(store.put('resp_0', input, response, 0)).toBe(false);
    expect(store.get('resp_0')).toBeNull();
    const huge = [{ id: 'msg_2', type: 'message', text: 'x'.repeat(STORED_RESPONSE_MAX_BYTES) }];
    expect(store.put('resp_big', huge, response, 60)).toBe(false);
    expect(store.get('resp_big')).toBeNull();
  });

  it('deletes on request', () => {
    const { store } = openStore(Date.now);
    store.put('resp_1', input, response, 60);
    expect(store.item('msg_1')).toEqual(input[0]);
    expect(store.delete('resp_1')).toBe(true);
    expect(store.get('resp_1')).toBeNull();
    expect(store.item('msg_1')).toBeUndefined();
    expect(store.delete('resp_1')).toBe(false);
  });

  it('leaves the activity schema version alone, so an older svc still opens the file', () => {
    const { path } = openStore(Date.now);
    const db = new Database(path, { readonly: true });
    opened.push(db);
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'responses'").get()).toEqual({ name: 'responses' });
  });
});
