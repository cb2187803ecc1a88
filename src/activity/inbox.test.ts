import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { foldInbox, inboxDir, leaveActivityRow, type InboxRow } from './inbox.js';
import type { ActivityInput } from './store.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-inbox-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const row = (action: string, ts: string): InboxRow => ({ action, target: 'svc.toml', actor: 'cli', ts, details: { n: 1 } });

function recorder() {
  const rows: ActivityInput[] = [];
  return { rows, record: (entry: ActivityInput) => rows.push(entry) };
}

describe('the activity inbox', () => {
  it('folds the rows left in it, oldest first, with their own time, and empties it', async () => {
    await leaveActivityRow(root, row('config.edit', '2026-05-02T10:00:00.000Z'));
    await leaveActivityRow(root, row('config.migrate', '2026-05-01T10:00:00.000Z'));
    const log = recorder();
    expect(await foldInbox(root, log)).toBe(2);
    expect(log.rows.map((r) => [r.action, r.ts?.toISOString(), r.actor])).toEqual([
      ['config.migrate', '2026-05-01T10:00:00.000Z', 'cli'],
      ['config.edit', '2026-05-02T10:00:00.000Z', 'cli'],
    ]);
    expect(readdirSync(inboxDir(root))).toEqual([]);
    expect(await foldInbox(root, log)).toBe(0);
  });

  it('records a row once when two folds run at once', async () => {
    for (let i = 0; i < 20; i++) await leaveActivityRow(root, row(`a.${i}`, new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString()));
    const log = recorder();
    const counts = await Promise.all([foldInbox(root, log), foldInbox(root, log)]);
    expect(counts[0]! + counts[1]!).toBe(20);
    expect(new Set(log.rows.map((r) => r.action)).size).toBe(20);
  });

  it('drops a file that is not a row, and leaves a write in progress alone', async () => {
    mkdirSync(inboxDir(root), { recursive: true });
    writeFileSync(join(inboxDir(root), '1-cut.json'), '{"action":"config.ed');
    writeFileSync(join(inboxDir(root), '.2.json.svc-tmp-1-ab'), JSON.stringify(row('x', '2026-05-01T00:00:00Z')));
    const log = recorder();
    expect(await foldInbox(root, log)).toBe(0);
    expect(readdirSync(inboxDir(root))).toEqual(['.2.json.svc-tmp-1-ab']);
  });

  it('has nothing to fold where no row was ever left', async () => {
    expect(await foldInbox(root, recorder())).toBe(0);
  });
});
