// The Settings and Access pages in real Chromium against a real gateway. Settings: a bad
// value's problem shows beside its key as it is typed; a change shows its apply plan in the
// confirm dialog before it is saved, lands in svc.toml (the API agrees) and is still there
// after the page reloads; a change the server refuses (a cross-field rule) shows the
// server's problem beside its key; Reload re-reads the files. Access: a token created is
// shown once (it works against the API, and is gone after a reload), and revoked after a
// confirmation, with the list and the API agreeing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, chromiumSkipReason, screenshot, startDashboard, type Dashboard } from './helpers/dashboard.js';
import { api } from './helpers/gateway.js';

const skip = chromiumSkipReason();
let dashboard: Dashboard;

beforeAll(async () => {
  if (skip) return;
  dashboard = await startDashboard();
}, 120_000);

afterAll(async () => {
  await dashboard?.close();
});

const field = (page: Page, key: string) => page.locator(`[data-field="${key}"] input, [data-field="${key}"] textarea, [data-field="${key}"] select`);
const problem = (page: Page, key: string) => page.getByTestId(`problem-${key}`);

async function settings(): Promise<{ slots: Record<string, unknown>; api: Record<string, unknown> }> {
  const answer = await api(dashboard.gateway.url, '/api/settings');
  return (answer.json as { settings: { slots: Record<string, unknown>; api: Record<string, unknown> } }).settings;
}

describe.skipIf(skip)('Settings and Access in Chromium', () => {
  it('checks a value as typed, shows the plan, saves one change set, keeps it after a reload, and shows the server\'s problems beside their keys', async () => {
    const { page, problems, settled } = await dashboard.open('/settings');
    const idle = field(page, 'slots.idle_timeout_s');
    await expect.poll(() => idle.inputValue()).toBe(String((await settings()).slots.idle_timeout_s));
    // Every group the spec's Advanced paragraph names is there.
    for (const group of ['slots', 'dispatcher', 'memory', 'memory-graph', 'activity']) await page.getByTestId(`group-${group}`).waitFor();

    await idle.fill('-1');
    await expect.poll(() => problem(page, 'slots.idle_timeout_s').textContent()).toBe('expected >= 0; got -1');
    expect(await page.getByTestId('settings-save').isDisabled()).toBe(true);

    await idle.fill('600');
    await field(page, 'api.max_body_mb').fill('128');
    await expect.poll(() => problem(page, 'slots.idle_timeout_s').count()).toBe(0);
    await page.getByTestId('settings-save').click();
    const dialog = page.getByTestId('confirm');
    await dialog.getByTestId('save-plan').waitFor();
    expect(await dialog.getByTestId('plan-slots.idle_timeout_s').textContent()).toBe('applies at once');
    expect(await dialog.getByTestId('plan-restart-svc-api').textContent()).toContain('api.max_body_mb');
    expect(await settings()).toMatchObject({ slots: { idle_timeout_s: 300 } }); // nothing written before the confirm
    await screenshot(page, 'settings-plan');
    await dialog.getByTestId('confirm-action').click();
    await page.getByTestId('settings-saved').waitFor();
    expect(await settings()).toMatchObject({ slots: { idle_timeout_s: 600 }, api: { max_body_mb: 128 } });
    const toml = readFileSync(join(dashboard.home.home, 'etc/svc/svc.toml'), 'utf8');
    expect(toml).toMatch(/idle_timeout_s = 600/);

    await page.reload();
    await expect.poll(() => field(page, 'slots.idle_timeout_s').inputValue()).toBe('600');
    expect(await field(page, 'api.max_body_mb').inputValue()).toBe('128');

    // Both in bounds, so only the server's cross-field rule refuses them.
    await field(page, 'slots.port_range_start').fill('8095');
    await field(page, 'slots.port_range_end').fill('8085');
    await page.getByTestId('settings-save').click();
    await page.getByTestId('confirm-action').click();
    await expect.poll(() => problem(page, 'slots.port_range_end').textContent()).toContain('expected >= slots.port_range_start (8095)');
    expect(await page.locator('.error-note code').first().textContent()).toBe('config.invalid');
    expect(await settings()).toMatchObject({ slots: { port_range_start: 8081, port_range_end: 8099 } });

    await page.getByTestId('settings-reload').click();
    expect(await page.getByTestId('settings-reloaded').textContent()).toContain('chat');
    await settled();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'settings');
    // The one refused PUT (and Chromium's console line for it) is the failure this test asked for; nothing else went wrong.
    expect(problems.filter((p) => !p.includes('status of 400'))).toEqual([expect.stringMatching(/^HTTP 400: PUT .*\/api\/settings$/)]);
    await page.close();
  }, 60_000);

  it('creates a token shown once with a copy button, and revokes it after a confirmation', async () => {
    const { page, problems, settled } = await dashboard.open('/access');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByTestId('auth-mode').waitFor();
    expect(await page.getByTestId('auth-mode').textContent()).toContain('Off');

    const label = page.getByTestId('create-token').getByLabel('Label');
    await label.fill(' ');
    await expect.poll(() => problem(page, 'label').count()).toBe(1);
    await label.fill('ci-laptop');
    await page.getByTestId('create-token').getByLabel('Scope').selectOption('read-only');
    await page.getByRole('button', { name: 'Create token' }).click();
    const raw = (await page.getByTestId('token-value').textContent()) ?? '';
    expect(raw).toMatch(/^svc_/);
    expect(await page.getByTestId('token-once').textContent()).toContain('cannot show it again');
    await page.getByTestId('token-copy').click();
    await expect.poll(() => page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText())).toBe(raw);
    await page.getByTestId('token-ci-laptop').waitFor();

    const listed = (await api(dashboard.gateway.url, '/api/auth/tokens')).json as { tokens: Array<{ id: string; label: string; scope: string }> };
    const token = listed.tokens.find((t) => t.label === 'ci-laptop');
    expect(token?.scope).toBe('read-only');
    expect(raw.startsWith(`svc_${token?.id}.`)).toBe(true);

    await page.reload();
    await page.getByTestId('token-ci-laptop').waitFor();
    expect(await page.getByTestId('token-once').count()).toBe(0);
    expect(await page.content()).not.toContain(raw);

    await page.getByRole('button', { name: 'Revoke ci-laptop' }).click();
    expect(await page.getByTestId('confirm').textContent()).toContain(token!.id);
    await page.getByTestId('confirm-action').click();
    await expect.poll(() => page.getByTestId('token-ci-laptop').count()).toBe(0);
    const after = (await api(dashboard.gateway.url, '/api/auth/tokens')).json as { tokens: Array<{ label: string }> };
    expect(after.tokens.map((t) => t.label)).not.toContain('ci-laptop');
    await settled();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'access');
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
