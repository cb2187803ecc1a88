// The fetch a remote tool server's transport uses (client-session.ts): undici with a connector
// that checks the address each connection actually reached (url-guard.ts; a refused one is
// closed before a byte is sent), and redirects never followed by fetch itself. The SDK
// follows a redirect only within the URL's origin, through this same fetch, so every hop is
// checked; any other redirect is an error.
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import type { TargetGuard } from './url-guard.js';

/** A connection the guard refused; its message is svc's own (no upstream text). */
export class TargetRefused extends Error {
  constructor(reason: string) {
    super(`refused: ${reason}; a listed host may not lead there (docs/auth.md, "Tool server URLs")`);
    this.name = 'TargetRefused';
  }
}

export interface RemoteFetch {
  readonly fetch: typeof fetch;
  close(): Promise<void>;
}

export function remoteFetch(guard: TargetGuard | null): RemoteFetch {
  const connect = buildConnector({});
  const agent = new Agent({
    connect: (options, callback) => connect(options, (error, socket) => {
      if (error || !socket) return callback(error ?? new Error('no socket'), null);
      const reason = guard?.(socket.remoteAddress ?? '', socket.remotePort ?? 0);
      if (!reason) return callback(null, socket);
      socket.destroy();
      callback(new TargetRefused(reason), null);
    }),
  });
  const guarded = (input: Parameters<typeof fetch>[0], init?: RequestInit) => undiciFetch(input as Parameters<typeof undiciFetch>[0], {
    ...(init as Parameters<typeof undiciFetch>[1]),
    redirect: init?.redirect === 'error' ? 'error' : 'manual',
    dispatcher: agent,
  });
  return { fetch: guarded as unknown as typeof fetch, close: () => agent.close() };
}
