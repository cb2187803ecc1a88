import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlotError } from '../../protocol/errors.js';
import { checkRpcWorkers, tcpReach } from './reach.js';

let server: Server;
let open: string;
let closed: string;

beforeAll(async () => {
  server = createServer((socket) => socket.destroy());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  open = `127.0.0.1:${(server.address() as { port: number }).port}`;
  // A port that was free a moment ago and is closed now: nothing listens there.
  const spare = createServer();
  await new Promise<void>((done) => spare.listen(0, '127.0.0.1', done));
  closed = `127.0.0.1:${(spare.address() as { port: number }).port}`;
  await new Promise((done) => spare.close(done));
});
afterAll(() => new Promise((done) => server.close(done)));

describe('tcpReach', () => {
  it('is ok when the worker accepts a connection, and says why when it does not', async () => {
    expect(await tcpReach(open, AbortSignal.timeout(5_000))).toEqual({ ok: true });
    expect(await tcpReach(closed, AbortSignal.timeout(5_000))).toEqual({ ok: false, reason: 'connection refused: nothing listens on that port' });
  });
});

describe('checkRpcWorkers', () => {
  it('passes when every worker accepts a connection', async () => {
    await expect(checkRpcWorkers('big', [open, open], AbortSignal.timeout(5_000))).resolves.toBeUndefined();
  });

  it('fails with slot.rpc_worker_unreachable naming the first unreachable worker, all of them in details', async () => {
    const error = await checkRpcWorkers('big', [open, closed], AbortSignal.timeout(5_000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlotError);
    expect(error).toMatchObject({ code: 'slot.rpc_worker_unreachable', details: { slot: 'big', worker: closed, unreachable: [{ worker: closed }] } });
    expect((error as Error).message).toContain(`RPC worker ${closed} does not accept a TCP connection`);
  });
});
