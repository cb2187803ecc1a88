// Can this host open a TCP connection to an RPC worker? What svc checks for each of a
// llama-server slot's rpc_workers before it starts the engine: llama-server itself aborts
// ("Failed to connect to host:port") on the first worker it cannot reach, without saying so
// to anyone but its log. IPv4 only, as llama.cpp's RPC client connects (gethostbyname).
// The connection is closed at once, before a byte is sent: rpc-server then reads an end of
// stream where it waits for a hello, drops it and accepts the next client.
import { connect } from 'node:net';
import { SlotError } from '../../protocol/errors.js';

export const REACH_TIMEOUT_MS = 3_000;

export type Reach = { ok: true } | { ok: false; reason: string };

/** One bounded connect to `endpoint` ("host:port"); never throws. */
export function tcpReach(endpoint: string, signal: AbortSignal, timeoutMs = REACH_TIMEOUT_MS): Promise<Reach> {
  const colon = endpoint.lastIndexOf(':');
  const host = endpoint.slice(0, colon);
  const port = Number(endpoint.slice(colon + 1));
  return new Promise((done) => {
    if (signal.aborted) return done({ ok: false, reason: 'the check was cancelled' });
    const socket = connect({ host, port, family: 4 });
    const finish = (result: Reach) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      done(result);
    };
    const onAbort = () => finish({ ok: false, reason: 'the check was cancelled' });
    const timer = setTimeout(() => finish({ ok: false, reason: `no answer within ${timeoutMs / 1000} s` }), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => finish({ ok: true }));
    socket.once('error', (error: NodeJS.ErrnoException) => finish({ ok: false, reason: reasonOf(error) }));
  });
}

function reasonOf(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED': return 'connection refused: nothing listens on that port';
    case 'EHOSTUNREACH': case 'ENETUNREACH': return 'no route to that host';
    case 'ENOTFOUND': case 'EAI_AGAIN': return 'the host name does not resolve';
    default: return error.code ?? error.message;
  }
}

/**
 * Check every worker at once; throws slot.rpc_worker_unreachable naming the first worker (in
 * the slot file's order) that does not accept a connection, with all of them in details.
 */
export async function checkRpcWorkers(slot: string, workers: readonly string[], signal: AbortSignal, timeoutMs = REACH_TIMEOUT_MS): Promise<void> {
  const results = await Promise.all(workers.map(async (worker) => ({ worker, reach: await tcpReach(worker, signal, timeoutMs) })));
  const down = results.flatMap(({ worker, reach }) => (reach.ok ? [] : [{ worker, reason: reach.reason }]));
  if (down.length === 0 || signal.aborted) return;
  const first = down[0]!;
  const others = down.length > 1 ? ` (also unreachable: ${down.slice(1).map((d) => d.worker).join(', ')})` : '';
  throw new SlotError(
    'slot.rpc_worker_unreachable',
    `slot ${slot}: RPC worker ${first.worker} does not accept a TCP connection (${first.reason})${others}; start its rpc-server (a llama-rpc slot on that host) or fix [slot].rpc_workers`,
    { slot, worker: first.worker, unreachable: down },
  );
}
