// A transaction whose memory database stops under it (an idle stop, a crash, a kill) fails as
// memory.engine_unreachable, and the process lives on. The connection it had checked out of
// the pool once had no 'error' listener while out, so the drop's 'error' event ended the
// whole gateway (and left its engines running): memory-engine-idle.test.ts saw it under load,
// when its 2 s idle stop came while the first use's migrations still ran. A real database:
// the embedded pg-process under its supervisor, reached as a server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerDatabase } from '../src/memory/db/engines.js';
import { PgSupervisor } from '../src/memory/db/supervisor.js';
import { REPO_ROOT } from './helpers/gateway.js';

const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-drop-'));
const supervisor = new PgSupervisor({ dataDir, entry: join(REPO_ROOT, 'dist/memory/db/pg-process.js'), idleTimeoutMs: () => 0 });
let port: number;

beforeAll(async () => {
  port = await supervisor.acquire();
}, 300_000);

afterAll(async () => {
  await supervisor.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a memory database that stops under a transaction', () => {
  it('fails the transaction as unreachable, and the process lives on', async () => {
    const db = new ServerDatabase(`postgres://postgres@127.0.0.1:${port}/postgres`, 1);
    try {
      const failed = await db.transaction(async (client) => {
        const ended = new Promise((done) => client.once('end', done));
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
