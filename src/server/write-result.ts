// The /v1 front door's one writer: the dispatcher's result (dispatch/result.ts) written to
// the client as it is, status, headers and body, the body's bytes as they arrive. A body of
// unknown length (an SSE stream) may be slow to start, so its head goes at once; a body of
// known length follows at once, and the head leaves with its first bytes in one write
// instead of a write of its own (one syscall less per request; docs/performance.md).
import type { ServerResponse } from 'node:http';
import { ClientGone } from '../dispatch/client-gone.js';
import { discard, type DispatchResult, isStream } from '../dispatch/result.js';
import { pipeIterable } from '../dispatch/upstream-body.js';

/** Write a result; resolves when its body ended or the client left. */
export async function writeResult(res: ServerResponse, result: DispatchResult): Promise<void> {
  const { body } = result;
  if (res.destroyed) return discard(body);
  res.writeHead(result.status, result.headers);
  if (!isStream(body)) {
    res.end(body);
    return;
  }
  if (result.headers['content-length'] === undefined) res.flushHeaders();
  await (body.pipeTo ? body.pipeTo(res) : pipeIterable(body, res));
  res.end();
}

/** The signal that aborts a request's upstream when its client leaves before the answer ended. */
export function clientGone(res: ServerResponse): ClientGone {
  const gone = new ClientGone();
  res.on('close', () => res.writableEnded || gone.abort());
  return gone;
}
