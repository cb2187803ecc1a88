// A real tool server from npm: McpService installs npm:@modelcontextprotocol/server-everything
// with the npm CLI into its state folder, runs its bin over stdio (no npx), lists its tools
// and calls echo. Then uninstall removes the record and the installed package.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mcpHarness } from './helpers/mcp.js';
import { waitFor } from './helpers/wait.js';

const h = mcpHarness();
afterAll(() => h.service.stopAll());

describe('npm:@modelcontextprotocol/server-everything', () => {
  it('installs with npm, starts over stdio, lists its tools and calls echo', async () => {
    const installed = await h.service.install({ spec: 'npm:@modelcontextprotocol/server-everything' });
    expect(installed).toMatchObject({ id: 'everything', transport: 'stdio', command: process.execPath, spec: 'npm:@modelcontextprotocol/server-everything' });
    const bin = installed.args[0]!;
    expect(bin.startsWith(join(h.paths.mcpStateDir, 'everything', 'node_modules', '@modelcontextprotocol', 'server-everything'))).toBe(true);
    expect(existsSync(join(h.paths.mcpServersDir, 'everything.toml'))).toBe(true);

    const ready = await waitFor(() => h.service.get('everything'), { what: 'the server to be ready', until: (v) => v.state === 'ready', timeout: 60_000 });
    expect(ready.tool_details.map((t) => t.name)).toContain('echo');
    const result = await h.service.call('everything__echo', { message: 'hello from svc' }, { scope: null, client: 'test' });
    expect(result.isError).toBe(false);
    expect(result.text).toContain('hello from svc');

    const test = await h.service.test('everything');
    expect(test).toMatchObject({ ok: true });

    await h.service.uninstall('everything');
    expect(existsSync(join(h.paths.mcpStateDir, 'everything'))).toBe(false);
    expect(existsSync(join(h.paths.mcpServersDir, 'everything.toml'))).toBe(false);
  }, 300_000);

  it('says mcp.install_failed with npm\'s output for a package that does not exist, leaving nothing', async () => {
    const error = await h.service.install({ spec: 'npm:@svc-test-nonexistent/no-such-mcp-server-x9', id: 'nope' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'mcp.install_failed', details: { stderr: expect.stringMatching(/404|E404|not found/i) } });
    expect(existsSync(join(h.paths.mcpStateDir, 'nope'))).toBe(false);
    expect(existsSync(join(h.paths.mcpServersDir, 'nope.toml'))).toBe(false);
  }, 120_000);
});
