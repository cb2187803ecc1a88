// The dashboard as a read-only token sees it, in real Chromium against a real gateway in auth
// mode: whoami says what the scope allows, so the pages hide token management, disable every
// change (with the reason), show host-only keys read-only, and make no request the server
// refuses. An admin token, on the same pages, gets the controls back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumSkipReason, startScopedDashboard, type ScopedDashboard } from './helpers/dashboard.js';

const skip = chromiumSkipReason();
let dashboard: ScopedDashboard;

beforeAll(async () => {
  if (skip) return;
  dashboard = await startScopedDashboard(['read-only', 'admin']);
}, 120_000);

afterAll(async () => {
  await dashboard?.close();
});

/** A page whose every request carries the token, once its heading is there; `refused` collects any answer of 400 or more. */
async function openAs(scope: string, path: string): Promise<{ page: Page; refused: string[]; answered(): Promise<void> }> {
  const opened = await dashboard.openAs(scope, path);
  await opened.page.getByRole('heading', { level: 1 }).first().waitFor();
  return opened;
}

describe.skipIf(skip)('the dashboard under a token\'s scope', () => {
  it('shows a read-only token no token management, no enabled change, host-only keys read-only, and asks nothing it would be refused', async () => {
    const access = await openAs('read-only', '/access');
    await access.page.getByTestId('identity').filter({ hasText: 'dashboard-read-only' }).waitFor();
    await access.page.getByTestId('tokens-refused').waitFor();
    expect(await access.page.getByTestId('create-token').count()).toBe(0);

    const settings = await openAs('read-only', '/settings');
    const store = settings.page.locator('[data-field="models.store"] input');
    await store.waitFor();
    expect(await store.getAttribute('readonly')).not.toBeNull();
    expect(await settings.page.locator('[data-field="slots.idle_timeout_s"] input').getAttribute('readonly')).not.toBeNull();
    expect(await settings.page.getByTestId('settings-reload').isDisabled()).toBe(true);

    const models = await openAs('read-only', '/models');
    await models.page.getByTestId('model-tiny').waitFor();
    expect(await models.page.getByTestId('remove').first().isDisabled()).toBe(true);
    expect(await models.page.getByTestId('remove').first().getAttribute('title')).toMatch(/read-only/);

    const stacks = await openAs('read-only', '/stacks');
    await stacks.page.getByRole('button', { name: /^Clone profile / }).first().waitFor();
    expect(await stacks.page.getByRole('button', { name: /^Clone profile / }).first().isDisabled()).toBe(true);

    // Each page has rendered what it read (above); once every request it made has its answer,
    // none of them may have been refused.
    for (const { page, refused, answered } of [access, settings, models, stacks]) {
      await answered();
      expect(refused, `${page.url()}: ${refused.join('; ')}`).toEqual([]);
    }
  }, 90_000);

  it('gives an admin token the same pages with their controls', async () => {
    const access = await openAs('admin', '/access');
    await access.page.getByTestId('create-token').waitFor();
    const models = await openAs('admin', '/models');
    await models.page.getByTestId('model-tiny').waitFor();
    await expect.poll(() => models.page.getByTestId('remove').first().isEnabled()).toBe(true);
    const settings = await openAs('admin', '/settings');
    const store = settings.page.locator('[data-field="models.store"] input');
    await store.waitFor();
    await expect.poll(() => store.getAttribute('readonly')).toBeNull();
    for (const opened of [access, models, settings]) await opened.answered();
    expect([...access.refused, ...models.refused, ...settings.refused]).toEqual([]);
  }, 60_000);
});
