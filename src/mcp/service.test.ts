// McpService with a real stdio MCP server (test/fixtures/mcp-fixture-server.mjs, built with the
// SDK): install from a command line, start, list tools, call them, the supervisor's restart
// after SIGKILL, the crash-loop cap, timeouts, list_changed, and stop.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureSpec, mcpHarness, type McpHarness } from '../../test/helpers/mcp.js';
import { waitFor } from '../../test/helpers/wait.js';
import { SvcError } from '../protocol/errors.js';

const caller = { scope: null, client: 'test' };
let h: McpHarness | undefined;

afterEach(async () => {
  await h?.service.stopAll();
  h = undefined;
});

const ready = (harness: McpHarness, id: string) =>
  waitFor(() => harness.service.get(id), { what: `${id} to be ready`, until: (v) => v.state === 'ready' });

describe('McpService with a stdio server', () => {
  it('installs a command line, starts it, lists its tools and calls them', async () => {
    h = mcpHarness();
    const installed = await h.service.install({ spec: fixtureSpec(), id: 'fix' });
    expect(installed.transport).toBe('stdio');
    const view = await ready(h, 'fix');
    expect(view.pid).toBeGreaterThan(0);
    expect(view.server_version).toBe('svc-fixture 1.0.0');
    expect(view.resources).toBe(1);
    const echo = view.tool_details.find((t) => t.name === 'echo')!;
    expect(echo).toMatchObject({ read_only: true, policy: 'allow' });
    expect(echo.input_schema).toMatchObject({ type: 'object', required: ['message'] });

    const offered = await h.service.offered(caller);
    expect(offered.map((t) => t.name)).toEqual(expect.arrayContaining(['fix__echo', 'fix__add', 'fix__sleep', 'fix__fail']));
    expect(await h.service.call('fix__add', { a: 2, b: 40 }, caller)).toMatchObject({ text: '42', isError: false });
    // A tool that answers isError is a result, not a throw.
    expect(await h.service.call('fix__fail', {}, caller)).toMatchObject({ isError: true, text: 'the fixture failed on purpose' });
    const types = h.events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['mcp.installed', 'mcp.state', 'mcp.tool.invoked', 'mcp.tool.executed', 'mcp.tool.failed']));
    expect((await h.service.logs('fix')).lines.join('\n')).toContain('fixture: ready pid');

    const test = await h.service.test('fix');
    expect(test).toMatchObject({ ok: true, server_id: 'fix', error: null });
    expect(test.tools.map((t) => t.name)).toContain('echo');

    await h.service.stop('fix');
    expect((await h.service.get('fix')).state).toBe('stopped');
    // On demand: an enabled, stopped server starts for a call.
    expect(await h.service.call('fix__echo', { message: 'again' }, caller)).toMatchObject({ text: 'again' });
  });

  it('restarts a server killed with SIGKILL', async () => {
    h = mcpHarness();
    await h.service.install({ spec: fixtureSpec(), id: 'fix' });
    const first = await ready(h, 'fix');
    process.kill(first.pid!, 'SIGKILL');
    const again = await waitFor(() => h!.service.get('fix'), { what: 'a restarted server', until: (v) => v.state === 'ready' && v.pid !== first.pid });
    expect(again.restarts).toBe(1);
    expect(await h.service.call('fix__echo', { message: 'back' }, caller)).toMatchObject({ text: 'back' });
    const moves = h.events.filter((e) => e.type === 'mcp.state').map((e) => `${(e.data as { from: string }).from}>${(e.data as { to: string }).to}`);
    expect(moves).toEqual(expect.arrayContaining(['ready>error', 'error>starting', 'starting>ready']));
  });

  it('stops restarting a server that exits at once, with its stderr in last_error', async () => {
    h = mcpHarness({ restart_max: 3, restart_window_s: 60 });
    await h.service.install({ spec: fixtureSpec('--exit-at-once'), id: 'broken' });
    const view = await waitFor(() => h!.service.get('broken'), { what: 'the crash-loop cap', until: (v) => v.state === 'error' && v.restarts === 2 && !!v.last_error?.includes('told to exit at once') && h!.events.some((e) => e.type === 'mcp.state' && (e.data as { reason: string }).reason.startsWith('crash loop')) });
    expect(view.last_error).toContain('fixture: cannot start');
    await expect(h.service.call('broken__echo', { message: 'x' }, caller)).rejects.toMatchObject({ code: 'mcp.unavailable' });
  });

  it('times a slow call out with mcp.tool_timeout', async () => {
    h = mcpHarness({ tool_timeout_s: 0.3 });
    await h.service.install({ spec: fixtureSpec(), id: 'fix' });
    await ready(h, 'fix');
    const error = await h.service.call('fix__sleep', { ms: 5_000 }, caller).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ code: 'mcp.tool_timeout' });
    // The server is still usable afterwards.
    expect(await h.service.call('fix__echo', { message: 'alive' }, caller)).toMatchObject({ text: 'alive' });
  });

  it('reads the tool list again on notifications/tools/list_changed', async () => {
    h = mcpHarness();
    await h.service.install({ spec: fixtureSpec(), id: 'fix' });
    await ready(h, 'fix');
    await h.service.call('fix__grow', {}, caller);
    await waitFor(() => h!.service.get('fix'), { what: 'the new tool', until: (v) => v.tool_details.some((t) => t.name === 'extra') });
    expect(await h.service.call('fix__extra', {}, caller)).toMatchObject({ text: 'extra' });
  });

  it('applies blocked and the token scope', async () => {
    h = mcpHarness();
    await h.service.install({ spec: fixtureSpec(), id: 'fix' });
    await ready(h, 'fix');
    await h.service.patchTools('fix', { blocked: ['add'] });
    expect((await h.service.offered(caller)).map((t) => t.name)).not.toContain('fix__add');
    await expect(h.service.call('fix__add', { a: 1, b: 1 }, caller)).rejects.toMatchObject({ code: 'mcp.tool_blocked' });
    // A read-only token gets the read-only tools only.
    const reader = { scope: 'read-only' as const, client: 'reader' };
    expect((await h.service.offered(reader)).map((t) => t.name)).toEqual(['fix__echo', 'fix__env']);
    await expect(h.service.call('fix__sleep', { ms: 1 }, reader)).rejects.toMatchObject({ code: 'mcp.tool_blocked', details: { reason: 'scope' } });
    expect(await h.service.call('fix__echo', { message: 'r' }, reader)).toMatchObject({ text: 'r' });
  });

  it('passes env and secrets from api.env to the process, restarting it on a config change', async () => {
    h = mcpHarness();
    mkdirSync(h.paths.configRoot, { recursive: true });
    writeFileSync(h.paths.apiEnv, 'FIXTURE_KEY=s3cret-value\n');
    await h.service.install({ spec: fixtureSpec(), id: 'fix' });
    const first = await ready(h, 'fix');
    expect(await h.service.call('fix__env', { name: 'API_TOKEN' }, caller)).toMatchObject({ text: '(unset)' });
    await h.service.patchConfig('fix', { env: { PLAIN: 'p' }, secrets: { API_TOKEN: 'FIXTURE_KEY' } });
    const again = await ready(h, 'fix');
    expect(again.pid).not.toBe(first.pid);
    expect(await h.service.call('fix__env', { name: 'API_TOKEN' }, caller)).toMatchObject({ text: 's3cret-value' });
    expect(await h.service.call('fix__env', { name: 'PLAIN' }, caller)).toMatchObject({ text: 'p' });
    // The record names the key, never the value; nor do events or activity rows.
    const file = readFileSync(join(h.paths.mcpServersDir, 'fix.toml'), 'utf8');
    expect(file).toContain('API_TOKEN = "FIXTURE_KEY"');
    expect(JSON.stringify([file, h.events, h.rows])).not.toContain('s3cret-value');
    expect(h.rows.map((r) => r.action)).toEqual(expect.arrayContaining(['mcp.install', 'mcp.update']));
  });
});
