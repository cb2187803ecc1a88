// Bundled servers (served by the gateway itself): listed as ready, their tools under the same
// policy, scope, approvals and events as an installed server's; they cannot be uninstalled,
// stopped or reconfigured, but their tool policy can be patched (stored in <id>.toml).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpHarness } from '../../test/helpers/mcp.js';
import { McpService } from './service.js';
import type { BundledTool } from './tool-host.js';

const tools: BundledTool[] = [
  { name: 'slots_list', description: 'List slots', input_schema: { type: 'object', properties: {} }, read_only: true, destructive: false, run: async () => ({ text: '[]', isError: false, raw: { content: [{ type: 'text', text: '[]' }] } }) },
  { name: 'slots_unload', description: 'Unload a slot', input_schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, read_only: false, destructive: true, run: async (args) => ({ text: `unloaded ${String(args.name)}`, isError: false, raw: {} }) },
];

describe('bundled servers', () => {
  it('are listed, called with policy and scope, and protected', async () => {
    const h = mcpHarness();
    h.service.registerBundled('svc-admin', tools);
    const view = await h.service.get('svc-admin');
    expect(view).toMatchObject({ bundled: true, state: 'ready', connect_url: '/mcp/admin/mcp', transport: 'streamable-http' });
    expect(view.tool_details.map((t) => [t.name, t.policy, t.read_only])).toEqual([['slots_list', 'allow', true], ['slots_unload', 'allow', false]]);
    expect(await h.service.call('svc-admin__slots_list', {}, { scope: null, client: 'mcp:test' })).toMatchObject({ text: '[]' });
    await expect(h.service.call('svc-admin__slots_unload', { name: 'chat' }, { scope: 'read-only', client: 'mcp:reader' })).rejects.toMatchObject({ code: 'mcp.tool_blocked' });

    for (const attempt of [() => h.service.uninstall('svc-admin'), () => h.service.stop('svc-admin'), () => h.service.patchConfig('svc-admin', { enabled: false })]) {
      await expect(attempt()).rejects.toMatchObject({ code: 'mcp.bundled' });
    }
    await h.service.patchTools('svc-admin', { gated: ['slots_unload'] });
    expect(readFileSync(join(h.paths.mcpServersDir, 'svc-admin.toml'), 'utf8')).toMatch(/^\[tools\]\n/);
    expect((await h.service.offered({ scope: null, client: 'x' })).map((t) => [t.name, t.policy])).toEqual([['svc-admin__slots_list', 'allow'], ['svc-admin__slots_unload', 'gated']]);

    // A gateway started again reads the stored policy.
    const again = new McpService({ paths: h.paths, settings: () => h.settings, publish: () => undefined, record: () => undefined, readApiEnv: async () => ({}) });
    again.registerBundled('svc-admin', tools);
    expect((await again.get('svc-admin')).tools.gated).toEqual(['slots_unload']);
    await expect(again.install({ spec: 'npm:whatever', id: 'svc-admin' })).rejects.toMatchObject({ code: 'mcp.id_reserved' });
  });

  it('time out a tool that never answers, even one that ignores its signal', async () => {
    const h = mcpHarness({ tool_timeout_s: 0.1 });
    h.service.registerBundled('svc-admin', [{ ...tools[0]!, name: 'hang', run: () => new Promise(() => undefined) }]);
    await expect(h.service.call('svc-admin__hang', {}, { scope: null, client: 'x' })).rejects.toMatchObject({ code: 'mcp.tool_timeout' });
    expect(h.events.map((e) => e.type)).toEqual(['mcp.tool.invoked', 'mcp.tool.failed']);
  });
});
