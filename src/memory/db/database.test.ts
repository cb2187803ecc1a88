import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MemoryError } from '../../protocol/errors.js';
import { asMemoryError, redactedUrl, serverConfig, ServerDatabase } from './database.js';

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the memory database connection', () => {
  it('takes the password from SVC_MEMORY_PG_PASSWORD only when the URL has none', () => {
    expect(serverConfig('postgres://me@db:5432/mem', { SVC_MEMORY_PG_PASSWORD: 'from-env' })).toEqual({ connectionString: 'postgres://me@db:5432/mem', password: 'from-env' });
    expect(serverConfig('postgres://me:in%20url@db/mem', { SVC_MEMORY_PG_PASSWORD: 'from-env' })).toEqual({ connectionString: 'postgres://me@db/mem', password: 'in url' });
    expect(serverConfig('postgres://me@db/mem', {})).toEqual({ connectionString: 'postgres://me@db/mem' });
  });

  it('names a server without its password', () => {
    expect(redactedUrl('postgres://me:hunter2@db.lan:6543/mem')).toBe('db.lan:6543/mem');
    expect(redactedUrl('postgresql://me:hunter2@db.lan/mem')).toBe('db.lan:5432/mem');
  });

  it('a server that refuses the connection is memory.engine_unreachable (503), and the message has no password', async () => {
    const db = new ServerDatabase(`postgres://me:hunter2@127.0.0.1:${await closedPort()}/mem`);
    const error = await db.query('SELECT 1').catch((e: unknown) => e);
    await db.close();
    expect(error).toBeInstanceOf(MemoryError);
    expect((error as MemoryError).code).toBe('memory.engine_unreachable');
    expect((error as MemoryError).status).toBe(503);
    expect(JSON.stringify((error as MemoryError).toEnvelope())).not.toContain('hunter2');
  });

  it('passes a SQL error on as it is', () => {
    const sqlError = Object.assign(new Error('relation "x" does not exist'), { code: '42P01' });
    expect(asMemoryError(sqlError, 'db')).toBe(sqlError);
  });
});
