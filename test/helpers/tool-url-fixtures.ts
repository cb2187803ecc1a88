// Two HTTP services for the tests of tool server URLs: an "internal" one that answers every
// request with a secret (as a service only this host reaches would) and counts the requests
// it got, and a real MCP server over streamable HTTP (the SDK's McpServer) that can also
// answer a redirect.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface Service {
  readonly server: Server;
  readonly port: number;
  /** http://<host>:<port> */
  readonly base: string;
  close(): void;
}

function listen(server: Server, host: string): Promise<Service> {
  return new Promise((done) => server.listen(0, host, () => {
    const port = (server.address() as AddressInfo).port;
    done({ server, port, base: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, close: () => { server.closeAllConnections(); server.close(); } });
  }));
}

export interface SecretService extends Service {
  readonly secret: string;
  /** Requests it answered. */
  readonly hits: () => number;
}

/**
 * Answers the secret on every path: /500 as a 500 in plain text, /json as a 200 that says JSON
 * but is not (a JSON parser quotes the start of what it could not read), anything else a 404.
 */
export async function startSecretService(host = '127.0.0.1'): Promise<SecretService> {
  const secret = `internal-secret-${randomBytes(8).toString('hex')}`;
  let hits = 0;
  const server = createServer((request, response) => {
    hits += 1;
    request.resume();
    if (request.url?.startsWith('/500')) return void response.writeHead(500, { 'content-type': 'text/plain' }).end(secret);
    if (request.url?.startsWith('/json')) return void response.writeHead(200, { 'content-type': 'application/json' }).end(`${secret} is not JSON`);
    response.writeHead(404, { 'content-type': 'text/plain' }).end(secret);
  });
  return { ...(await listen(server, host)), secret, hits: () => hits };
}

/** A stateless MCP server with one tool, `echo`, on /mcp; /redirect answers 307 to `redirect.to` (set later). */
export async function startMcpHttp(host: string): Promise<Service & { redirect: { to: string } }> {
  const redirect = { to: '' };
  const server = createServer((request, response) => {
    if (request.url?.startsWith('/redirect')) return void response.writeHead(307, { location: redirect.to }).end();
    const mcp = new McpServer({ name: 'lan-fixture', version: '1.0.0' });
    mcp.registerTool('echo', { description: 'Echo the text', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => void transport.close());
    void mcp.connect(transport).then(() => transport.handleRequest(request, response));
  });
  return { ...(await listen(server, host)), redirect };
}
