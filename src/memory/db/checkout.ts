// A connection checked out of a pool for several statements (a transaction, the migrations).
// While it is out, nothing of pg-pool's listens to its 'error' event (the pool listens to idle
// connections, pool.query to the one it runs on), so a connection that drops then (the
// database process killed, or stopped, mid-transaction) emits an 'error' no one hears, and
// Node ends the whole gateway for it, leaving its engines running. The failure still reaches
// the caller as the rejection of the statement it was running; the listener only keeps the
// gateway up, and the error given back on release makes the pool discard the dead connection.
import type pg from 'pg';

export async function withCheckedOut<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let dropped: Error | undefined;
  const onError = (error: Error) => void (dropped ??= error);
  client.on('error', onError);
  try {
    return await fn(client);
  } finally {
    client.removeListener('error', onError);
    client.release(dropped);
  }
}
