// The embedded memory database is never idle-stopped under a use: a query that outlasts
// [memory].idle_timeout_s gets its answer, and the idle time counts from its end (under load a
// first use's migrations outlasted a 2 s timeout, and the add failed). And a transaction whose
// memory database stops under it anyway (a stop, a crash, a kill) fails as
// memory.engine_unreachable, and the process lives on. The connection it had checked out of
// the pool once had no 'error' listener while out, so the drop's 'error' event ended the
// whole gateway (and left its engines running): memory-engine-idle.test.ts saw it under load,
// when its 2 s idle stop came while the first use's migrations still ran. A real database:
// the embedded pg-process under its supervisor, reached as a server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { EmbeddedDatabase, ServerDatabase } from '../src/memory/db/engines.js';
import { PgSupervisor } from '../src/memory/db/supervisor.js';
import { REPO_ROOT } from './helpers/gateway.js';
import { waitFor } from './helpers/wait.js';

const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-drop-'));
let idleMs = 0;
const states: string[] = [];
const supervisor = new PgSupervisor({ dataDir, entry: join(REPO_ROOT, 'dist/memory/db/pg-process.js'), idleTimeoutMs: () => idleMs, onState: (e) => states.push(e.to) });

beforeAll(async () => {
  await supervisor.acquire();
}, 300_000);

afterAll(async () => {
  await supervisor.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the embedded memory database under a use', () => {
  it('is not idle-stopped while a query runs longer than the idle timeout; it stops after', async () => {
    const db = new EmbeddedDatabase(supervisor);
    idleMs = 200;
    try {
      // A second against 200 ms: an idle timer that ignored the query would stop the process under it.
      expect((await db.query<{ done: string }>("SELECT pg_sleep(1)::text AS done")).rows).toHaveLength(1);
      expect(states.slice(-1)).toEqual(['ready']);
      await waitFor(() => supervisor.state, { what: 'the idle stop after the query', until: (state) => state === 'stopped' });
    } finally {
      idleMs = 0;
      await db.close();
    }
  }, 60_000);

  it('fails a transaction whose database stops under it as unreachable, and the process lives on', async () => {
    const port = await supervisor.acquire();
    const db = new ServerDatabase(`postgres://postgres@127.0.0.1:${port}/postgres`, 1);
    try {
      const failed = await db.transaction(async (client) => {
        const ended = new Promise((done) => (client as pg.PoolClient).once('end', done));
        await supervisor.stop('stopped under a transaction');
        await ended;
        return client.query('SELECT 1');
      }).catch((error: unknown) => error);
      expect(failed).toMatchObject({ code: 'memory.engine_unreachable' });
    } finally {
      await db.close();
    }
  }, 60_000);
});
