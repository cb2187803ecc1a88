// The memory store's connection pool against a real database (the embedded pg-process,
// reached as a server): every new connection gets the session settings before its first
// query, and pg has nothing to warn about. Sent from the pool's 'connect' event, the settings
// were still queued when the pool handed the new client to a waiting query: two queries
// queued on one client, which pg deprecates with a DeprecationWarning on the gateway's stderr
// (a new connection after the idle one closed; several at once on a server's pool).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerDatabase } from '../src/memory/db/engines.js';
import { PgSupervisor } from '../src/memory/db/supervisor.js';
import { REPO_ROOT } from './helpers/gateway.js';

const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-pool-'));
const supervisor = new PgSupervisor({ dataDir, entry: join(REPO_ROOT, 'dist/memory/db/pg-process.js'), idleTimeoutMs: () => 0 });
let port: number;
const warnings: string[] = [];
const heard = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);

beforeAll(async () => {
  process.on('warning', heard);
  port = await supervisor.acquire();
}, 300_000);

afterAll(async () => {
  process.off('warning', heard);
  await supervisor.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the memory database pool', () => {
  it('sets up each new connection before its first query, with no warning from pg', async () => {
    const db = new ServerDatabase(`postgres://postgres@127.0.0.1:${port}/postgres`, 4);
    try {
      // Four at once: the pool opens new connections for the three it has no idle one for.
      const shown = await Promise.all([1, 2, 3, 4].map(() => db.query<{ 'hnsw.ef_search': string }>('SHOW hnsw.ef_search')));
      expect(shown.map((answer) => answer.rows[0]?.['hnsw.ef_search'])).toEqual(['100', '100', '100', '100']);
      expect(warnings).toEqual([]);
    } finally {
      await db.close();
    }
  }, 60_000);
});
