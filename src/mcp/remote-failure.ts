// Why a remote tool server could not be reached, in svc's own words: a status and a short
// reason, never the text of the answer. The SDK's errors quote the body ("Error POSTing to
// endpoint: <body>") and a JSON parse error quotes the start of it, so a URL that points at
// some other service would read that service back through last_error, the test answer, the
// events and the activity log (docs/auth.md, "Tool server URLs").
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { TargetRefused } from './remote-fetch.js';

/** The first error along the cause chain that passes `test`. */
function along(error: unknown, test: (e: Error) => boolean): Error | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (test(e)) return e;
  return undefined;
}

/** A socket or undici error code (ECONNREFUSED, ENOTFOUND, UND_ERR_CONNECT_TIMEOUT, …). */
const codeOf = (error: unknown): string | undefined => {
  const found = along(error, (e) => typeof (e as { code?: unknown }).code === 'string');
  const code = (found as { code?: string } | undefined)?.code;
  return code && /^[A-Z0-9_]{2,40}$/.test(code) ? code : undefined;
};

export function remoteFailure(error: unknown): string {
  const refused = along(error, (e) => e instanceof TargetRefused);
  if (refused) return refused.message;
  if (error instanceof StreamableHTTPError || error instanceof SseError) {
    const status = error.code;
    if (typeof status !== 'number' || status <= 0) return error instanceof SseError ? 'the event stream failed' : 'the answer is not an MCP answer (content type)';
    return `the server answered HTTP ${status}${status >= 300 && status < 400 ? ' (a redirect off its origin, not followed)' : ''}`;
  }
  if (error instanceof UnauthorizedError) return 'the server asks for authorization (HTTP 401)';
  if (error instanceof McpError) return error.code === ErrorCode.RequestTimeout ? `no answer in time (MCP error ${error.code})` : `MCP error ${error.code}`;
  if (error instanceof SyntaxError || (error instanceof Error && error.name === 'ZodError')) return 'the answer is not an MCP answer (JSON-RPC)';
  const code = codeOf(error);
  return code ? `fetch failed (${code})` : 'the connection failed';
}
