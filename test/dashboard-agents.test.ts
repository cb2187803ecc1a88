// The Agents page in real Chromium against a real gateway: pi and hermes are offered for
// install (pi is not installed here: an npm install takes minutes, test/agents-pi covers it),
// an agent that is not installed offers no uninstall, and a /v1 request sent with
// X-Svc-Agent: pi is a row of pi's activity. hermes is provisioned through the API with the
// stand-in runtime (test/fixtures/hermes-runtime.mjs), and its page shows the phases of that
// provision.json and its personas, one activated from the page. A read-only token finds
// Install disabled, saying why.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HERMES_PHASES } from '../src/agents/hermes/types.js';
import { api, REPO_ROOT } from './helpers/gateway.js';
import { axeViolations, chromiumSkipReason, screenshot, startDashboard, startScopedDashboard, type Dashboard, type ScopedDashboard } from './helpers/dashboard.js';

const skip = chromiumSkipReason();
const RUNTIME = join(REPO_ROOT, 'test/fixtures/hermes-runtime.mjs');
let dashboard: Dashboard;

beforeAll(async () => {
  if (skip) return;
  dashboard = await startDashboard({ env: { SVC_HERMES_RUNTIME: RUNTIME } });
}, 120_000);

afterAll(async () => {
  await dashboard?.close();
});

describe.skipIf(skip)('the Agents page', () => {
  it('offers pi and hermes for install, and no uninstall of an agent that is not installed', async () => {
    const { page, problems, settled } = await dashboard.open('/agents');
    const pi = page.getByTestId('available-pi');
    await pi.waitFor();
    await page.getByTestId('available-hermes').waitFor();
    const install = pi.getByTestId('install-pi');
    expect(await install.isDisabled()).toBe(false);
    await settled();
    expect(await page.getByTestId('agents-installed').textContent()).toContain('No agent is installed yet');
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'agents');

    // Install… asks first and says what runs; Cancel installs nothing.
    await install.click();
    const confirm = page.getByTestId('confirm');
    expect(await confirm.textContent()).toContain('npm installs its pinned version');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(((await api(dashboard.gateway.url, '/api/agents')).json as { count: number }).count).toBe(0);

    await pi.getByRole('link', { name: 'pi' }).click();
    await page.waitForURL(/\/agents\/pi$/);
    expect(await page.getByTestId('agent-status').textContent()).toBe('not_installed');
    await page.getByTestId('agent-log').getByText('Not installed').waitFor();
    expect(await page.getByTestId('agent-actions').count()).toBe(0);
    expect(await page.getByTestId('uninstall').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows a /v1 request sent with X-Svc-Agent: pi in pi\'s activity', async () => {
    const chat = await api(dashboard.gateway.url, '/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-svc-agent': 'pi' },
      body: { model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 },
    });
    expect(chat.status, chat.text).toBe(200);
    const { page, problems } = await dashboard.open('/agents/pi');
    const row = page.locator('[data-testid="activity-row"][data-tool="POST /v1/chat/completions"]');
    // The row is written when the answer ends: Refresh until the page reads it.
    while ((await row.count()) === 0) {
      await page.getByTestId('activity-refresh').click();
      await row.first().waitFor({ timeout: 2000 }).catch(() => undefined);
    }
    expect(await row.first().textContent()).toContain('"model":"chat"');
    expect(await row.first().locator('td').nth(3).textContent()).toBe('ok');
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows the phases of hermes\'s last provision and its personas, and activates one', async () => {
    const run = await api(dashboard.gateway.url, '/api/agents/hermes/provision', { method: 'POST', body: {} });
    expect(run.status, run.text).toBe(200);
    const record = (await api(dashboard.gateway.url, '/api/agents/hermes/provision')).json as { phases: Record<string, { status: string }> };
    const { page, problems, settled } = await dashboard.open('/agents/hermes');
    const phases = page.getByTestId('provision').locator('[data-testid^="phase-"]');
    await phases.first().waitFor();
    expect(await phases.count()).toBe(Object.keys(record.phases).length);
    for (const phase of HERMES_PHASES.filter((p) => record.phases[p])) {
      expect(await page.getByTestId(`phase-${phase}`).getAttribute('data-status'), phase).toBe(record.phases[phase]?.status);
    }
    const personas = (await api(dashboard.gateway.url, '/api/agents/hermes/personas')).json as { personas: Array<{ id: string; active: boolean }> };
    const inactive = personas.personas.find((p) => !p.active);
    expect(inactive, JSON.stringify(personas)).toBeDefined();
    const item = page.getByTestId(`persona-${inactive!.id}`);
    await item.getByRole('button', { name: 'Activate' }).click();
    await page.getByTestId('persona-activated').waitFor();
    await page.locator(`[data-testid="persona-${inactive!.id}"][data-active="true"]`).waitFor();
    expect(((await api(dashboard.gateway.url, '/api/agents/hermes/personas')).json as { active: string }).active).toBe(inactive!.id);
    await settled();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'agents-hermes');
    expect(problems).toEqual([]);
    await page.close();
  }, 180_000);
});

describe.skipIf(skip)('the Agents page under a read-only token', () => {
  let dashboard: ScopedDashboard;

  beforeAll(async () => {
    dashboard = await startScopedDashboard(['read-only']);
  }, 120_000);

  afterAll(async () => {
    await dashboard?.close();
  });

  it('disables Install with the reason', async () => {
    const { page, refused, close } = await dashboard.openAs('read-only', '/agents');
    const install = page.getByTestId('install-pi');
    // Disabled while whoami is read, then for the token's reason.
    await page.locator('[data-testid="install-pi"][title*="read-only"]').waitFor();
    expect(await install.isDisabled()).toBe(true);
    expect(await install.getAttribute('title')).toMatch(/read-only/);
    expect(refused).toEqual([]);
    await close();
  }, 60_000);
});
