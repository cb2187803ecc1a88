// The Tool servers page in real Chromium against a real gateway: a server installed from a
// command-line spec typed into the page (the MCP fixture server, so no network is needed)
// becomes ready live with the tools it lists; one is gated and the server tested, through
// the page. Then a call to a gated tool of the bundled svc-admin server, made with the MCP
// SDK's own client over /mcp/admin/mcp, waits in the Approvals panel (and the nav's count)
// until Approve runs it (and Deny refuses another). A spec that is none of the forms is
// refused beside its field. A read-only token (auth mode) finds every change disabled, saying why.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerView } from '../src/protocol/mcp.js';
import { api, REPO_ROOT } from './helpers/gateway.js';
import { axeViolations, chromiumSkipReason, screenshot, startDashboard, startScopedDashboard, type Dashboard, type ScopedDashboard } from './helpers/dashboard.js';

const skip = chromiumSkipReason();
const FIXTURE = join(REPO_ROOT, 'test/fixtures/mcp-fixture-server.mjs');
/** A tool the fixture server lists. */
const TOOL = 'echo';
let dashboard: Dashboard;

const serverIds = async (): Promise<string[]> => ((await api(dashboard.gateway.url, '/api/mcp/servers')).json.servers as McpServerView[]).map((s) => s.id).sort();

beforeAll(async () => {
  if (skip) return;
  dashboard = await startDashboard();
}, 120_000);

afterAll(async () => {
  await dashboard?.close();
});

describe.skipIf(skip)('the Tool servers page', () => {
  it('installs a server from a spec, shows it ready live with its tools, gates one and tests it', async () => {
    const { page, problems } = await dashboard.open('/tools');
    await page.getByTestId('server-row-svc-admin').waitFor();
    await page.getByTestId('install-source').fill(`node ${FIXTURE}`);
    await page.getByTestId('install-id').fill('fixture');
    await page.getByTestId('install-submit').click();
    // The server's page, where the state arrives from the event stream.
    await page.waitForURL(/\/tools\/fixture$/);
    await page.getByTestId('detail-state').and(page.locator(':text-is("ready")')).waitFor();
    const row = page.getByTestId(`tool-${TOOL}`);
    await row.waitFor();
    expect(await row.getAttribute('data-policy')).toBe('allow');

    await row.getByTestId('tool-policy').selectOption('gated');
    await page.getByTestId('save-policies').click();
    const confirm = page.getByTestId('confirm');
    expect(await confirm.getByTestId('confirm-changes').textContent()).toContain(`${TOOL}: allow → gated`);
    await confirm.getByTestId('confirm-action').click();
    await page.locator(`[data-testid="tool-${TOOL}"][data-policy="gated"]`).waitFor();
    const view = (await api(dashboard.gateway.url, '/api/mcp/servers/fixture')).json as McpServerView;
    expect(view.tools.gated).toEqual([TOOL]);
    expect(view.tool_details.find((tool) => tool.name === TOOL)?.policy).toBe('gated');

    await page.getByTestId('action-test').click();
    const result = page.getByTestId('test-result');
    await result.waitFor();
    expect(await result.getAttribute('data-ok')).toBe('true');
    expect(await result.getByTestId('test-summary').textContent()).toMatch(/connected in \d+ ms: \d+ tools?/);
    expect(await result.getByTestId('test-tools').textContent()).toContain(TOOL);
    await screenshot(page, 'tools-detail');

    // The list shows it ready too, with its gated tool counted.
    await page.getByRole('link', { name: 'Tool servers', exact: true }).first().click();
    const listed = page.locator('[data-testid="server-row-fixture"][data-state="ready"]');
    await listed.waitFor();
    expect(await listed.getByTestId('server-tools').textContent()).toContain('1 gated');
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('shows a gated call waiting, live; Approve runs it and Deny refuses another', async () => {
    const gate = await api(dashboard.gateway.url, '/api/mcp/svc-admin/tools', { method: 'PATCH', body: { allow: [], gated: ['status'], blocked: [] } });
    expect(gate.status).toBe(200);
    const { page, problems, settled } = await dashboard.open('/tools');
    await page.getByTestId('approvals').getByText('No call waits for a decision').waitFor();

    const client = new Client({ name: 'dashboard-tools-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${dashboard.gateway.url}/mcp/admin/mcp`)));
    // The call waits in the queue until someone decides: it runs in the background meanwhile.
    const call = client.callTool({ name: 'status', arguments: {} });
    try {
      const waiting = page.locator('[data-tool="svc-admin__status"]');
      await waiting.waitFor();
      expect(await page.getByTestId('approvals-badge').textContent()).toBe('1');
      expect(await waiting.locator('td').nth(2).textContent()).not.toBe('');
      await settled();
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, 'tools');

      await waiting.getByTestId('approve').click();
      await waiting.waitFor({ state: 'detached' });
      expect(await page.getByTestId('approval-outcome').textContent()).toMatch(/svc-admin__status (executed|approved)/);
      const answer = await call;
      expect(answer.isError ?? false).toBe(false);
      await page.getByTestId('approvals-badge').waitFor({ state: 'detached' });
      expect((await api(dashboard.gateway.url, '/api/agent/approvals')).json.approvals).toEqual([]);

      // A second call, denied: the caller hears why, and the panel empties again.
      const denied = client.callTool({ name: 'status', arguments: {} }).then(
        (result) => JSON.stringify(result),
        (error: Error) => error.message,
      );
      const again = page.locator('[data-tool="svc-admin__status"]');
      await again.getByTestId('deny').click();
      await again.waitFor({ state: 'detached' });
      expect(await page.getByTestId('approval-outcome').textContent()).toBe('svc-admin__status denied');
      expect(await denied).toMatch(/denied/);
      await page.getByTestId('approvals').getByText('No call waits for a decision').waitFor();
    } finally {
      await call.catch(() => undefined);
      await client.close();
    }
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('fits a phone with servers, catalog and a server\'s tools shown', async () => {
    for (const path of ['/tools', '/tools/fixture']) {
      const { page, problems, settled } = await dashboard.open(path, { width: 375, height: 740 });
      await page.getByRole('heading', { level: 1 }).waitFor();
      await (path === '/tools' ? page.getByTestId('catalog-everything') : page.getByTestId(`tool-${TOOL}`)).waitFor();
      await settled();
      const [scroll, client] = await page.evaluate(() => {
        const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
        return [root.scrollWidth, root.clientWidth];
      });
      expect(scroll, path).toBeLessThanOrEqual(client);
      expect(problems).toEqual([]);
      await page.close();
    }
  }, 30_000);

  it('shows the server\'s refusal of a spec beside the field', async () => {
    const { page, problems } = await dashboard.open('/tools');
    const form = page.getByTestId('install');
    const before = await serverIds();
    await form.getByTestId('install-source').fill('ftp://example.com/x');
    await form.getByTestId('install-submit').click();
    const problem = form.getByTestId('problem-source');
    await problem.waitFor();
    // The server's own words (mcp.invalid_spec's problem), beside the field and nowhere else.
    expect((await problem.textContent())?.length).toBeGreaterThan(0);
    expect(await form.locator('.error-note').count()).toBe(0);
    expect(await form.getByTestId('install-source').getAttribute('aria-invalid')).toBe('true');
    expect(await serverIds()).toEqual(before);
    expect(problems.filter((p) => !/HTTP 400: POST .*\/api\/mcp\/install$|status of 400 \(Bad Request\)/.test(p))).toEqual([]);
    await page.close();
  }, 30_000);
});

describe.skipIf(skip)('the Tool servers page under a read-only token', () => {
  let dashboard: ScopedDashboard;

  beforeAll(async () => {
    dashboard = await startScopedDashboard(['read-only']);
  }, 120_000);

  afterAll(async () => {
    await dashboard?.close();
  });

  it('disables every change with the reason and asks nothing it would be refused', async () => {
    const { page, refused, close } = await dashboard.openAs('read-only', '/tools');
    await page.getByTestId('server-row-svc-admin').waitFor();
    await page.getByTestId('catalog-everything').waitFor();
    const reason = /read-only/;
    for (const control of [page.getByTestId('install-submit'), page.getByTestId('catalog-refresh'), page.getByRole('button', { name: 'install everything' })]) {
      expect(await control.isDisabled()).toBe(true);
      expect(await control.getAttribute('title')).toMatch(reason);
    }
    await page.getByRole('link', { name: 'svc-admin' }).click();
    const policy = page.getByTestId('tool-status').getByTestId('tool-policy');
    await policy.waitFor();
    expect(await policy.isDisabled()).toBe(true);
    expect(await policy.getAttribute('title')).toMatch(reason);
    for (const action of ['start', 'stop', 'restart', 'test', 'disable']) {
      const button = page.getByTestId(`action-${action}`);
      expect(await button.isDisabled(), action).toBe(true);
      expect(await button.getAttribute('title'), action).toMatch(reason);
    }
    // The gateway's own server cannot be uninstalled: no button for it.
    expect(await page.getByTestId('action-uninstall').count()).toBe(0);
    expect(refused).toEqual([]);
    await close();
  }, 60_000);
});
