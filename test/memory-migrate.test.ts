// `svc memory migrate` (the bare form; docs/memory.md, "Migrating from Cognee"):
// a dry-run over a legacy hal0_memory_index.sqlite that the test writes with the columns the
// Cognee era had. No gateway runs: the command reads the file itself, read-only.
import Database from 'better-sqlite3';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { legacyDatasetBank } from '../src/memory/legacy-cognee.js';
import { runSvcAsync, tempHome } from './helpers/gateway.js';

const home = tempHome();
afterAll(() => rmSync(home.home, { recursive: true, force: true }));

function writeIndex(dir: string, datasets: Array<string | null>): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'hal0_memory_index.sqlite');
  const db = new Database(path);
  db.exec('CREATE TABLE hal0_memory_items (id TEXT PRIMARY KEY, text TEXT, timestamp TEXT, dataset TEXT, tags TEXT, source TEXT, metadata TEXT, cognee_data_id TEXT, cognee_dataset_id TEXT)');
  const insert = db.prepare('INSERT INTO hal0_memory_items (id, text, timestamp, dataset, tags, source, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)');
  datasets.forEach((dataset, i) => insert.run(`item-${i}`, `text ${i} '; DROP TABLE x; --`, '2025-01-01T00:00:00Z', dataset, '[]', 'legacy', '{}'));
  db.close();
  return path;
}

const migrate = (...args: string[]) => runSvcAsync(['memory', 'migrate', ...args], { home: home.home, env: { SVC_API_URL: 'http://127.0.0.1:9' } });

describe('svc memory migrate', () => {
  it('maps legacy datasets onto namespaces', () => {
    expect(legacyDatasetBank(null)).toBe('shared');
    expect(legacyDatasetBank('shared')).toBe('shared');
    expect(legacyDatasetBank('private:hermes')).toBe('private__hermes');
    expect(legacyDatasetBank('private:not ok')).toBeNull();
    expect(legacyDatasetBank('project:alpha')).toBe('shared');
    expect(legacyDatasetBank('agents')).toBe('agents');
    expect(legacyDatasetBank('cognee_default')).toBeNull();
  });

  it('counts rows total, mapped, unmapped with --json, and prints the panel; the file is not changed; no gateway is needed', async () => {
    const dir = join(home.home, 'cognee');
    const path = writeIndex(dir, [null, 'shared', 'private:hermes', 'project:alpha', 'agents', 'cognee_default', 'private:bad id']);
    const before = readFileSync(path);
    const mtime = statSync(path).mtimeMs;
    const json = await migrate('--cognee-dir', dir, '--json');
    expect(json.status, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ rows_total: 7, rows_mapped: 5, rows_unmapped: 2, noop: false });
    const panel = await migrate('--cognee-dir', dir);
    expect(panel.status, panel.stderr).toBe(0);
    expect(panel.stdout.split('\n').slice(0, 5)).toEqual([
      'memory · migrate (dry-run)', '  Rows total    7', '  Rows mapped   5', '  Rows unmapped 2', '  No-op         no',
    ]);
    expect(readFileSync(path)).toEqual(before);
    expect(statSync(path).mtimeMs).toBe(mtime);
  }, 30_000);

  it('is a no-op for an empty index or a directory without one', async () => {
    const empty = join(home.home, 'empty');
    writeIndex(empty, []);
    expect(JSON.parse((await migrate('--cognee-dir', empty, '--json')).stdout)).toEqual({ rows_total: 0, rows_mapped: 0, rows_unmapped: 0, noop: true });
    const none = await migrate('--cognee-dir', join(home.home, 'nowhere'));
    expect(none.status).toBe(0);
    expect(none.stdout).toContain('No-op         yes');
    expect(none.stdout).toContain('no legacy index at');
  }, 30_000);

  it('--no-dry-run dies with the legacy message', async () => {
    const applied = await migrate('--no-dry-run');
    expect(applied.status).toBe(1);
    expect(applied.stderr).toContain('--apply is not yet implemented; dry-run only.');
  }, 30_000);
});
