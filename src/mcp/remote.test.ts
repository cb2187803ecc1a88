// Remote tool servers: a real MCP server (the SDK's McpServer) served over streamable HTTP by
// a local HTTP server, connected and called through McpService; when it goes away the probe
// (MCP ping) marks it error. Also a stdio server that stops answering pings is restarted.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fixtureSpec, mcpHarness, type McpHarness } from '../../test/helpers/mcp.js';
import { waitFor } from '../../test/helpers/wait.js';

let h: McpHarness | undefined;
let http: Server | undefined;
afterEach(async () => {
  await h?.service.stopAll();
  http?.closeAllConnections();
  http?.close();
  h = undefined;
  http = undefined;
});

/** A stateless streamable-HTTP MCP server with one tool, `shout`. */
function startRemote(): Promise<string> {
  http = createServer((req, res) => {
    const server = new McpServer({ name: 'remote-fixture', version: '2.0.0' });
    server.registerTool('shout', { description: 'Upper-case the text', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } }, async ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  return new Promise((done) => http!.listen(0, '127.0.0.1', () => done(`http://127.0.0.1:${(http!.address() as AddressInfo).port}/mcp`)));
}

describe('remote and unresponsive servers', () => {
  it('connects to a streamable-HTTP server, calls its tool, and marks it error when it stops answering', async () => {
    const url = await startRemote();
    h = mcpHarness({ ping_interval_s: 0.2, restart_max: 2 });
    const installed = await h.service.install({ url, id: 'remote' });
    expect(installed).toMatchObject({ transport: 'streamable-http', url, connect_url: url });
    const view = await waitFor(() => h!.service.get('remote'), { what: 'the remote to be ready', until: (v) => v.state === 'ready' });
    expect(view).toMatchObject({ pid: null, server_version: 'remote-fixture 2.0.0' });
    expect(await h.service.call('remote__shout', { text: 'hi' }, { scope: null, client: 'test' })).toMatchObject({ text: 'HI' });
    expect(await h.service.test('remote')).toMatchObject({ ok: true, transport: 'streamable-http' });

    http!.closeAllConnections();
    http!.close();
    const down = await waitFor(() => h!.service.get('remote'), { what: 'the probe to notice', until: (v) => v.state === 'error' && v.last_error !== null });
    expect(down.last_error).toMatch(/ping failed|fetch failed|ECONNREFUSED/);
  });

  it('restarts a stdio server that stops answering pings', async () => {
    h = mcpHarness({ ping_interval_s: 0.3 });
    await h.service.install({ spec: fixtureSpec(), id: 'fix' });
    const first = await waitFor(() => h!.service.get('fix'), { what: 'fix to be ready', until: (v) => v.state === 'ready' });
    process.kill(first.pid!, 'SIGSTOP');
    const again = await waitFor(() => h!.service.get('fix'), { what: 'a new process', until: (v) => v.state === 'ready' && v.pid !== first.pid, timeout: 20_000 });
    expect(again.restarts).toBeGreaterThanOrEqual(1);
    expect((await h.service.logs('fix')).lines.join('\n')).toContain('ping failed');
    // The stopped one was killed (the SDK's close ends with SIGKILL, which a stopped process takes).
    await waitFor(() => { try { process.kill(first.pid!, 0); return false; } catch { return true; } }, { what: 'the stopped process to be gone', timeout: 20_000 });
  });
});
