// The Activity, Doctor and Updates pages in real Chromium against a real gateway. Activity:
// a slot filter and a type filter narrow the rows and the URL (a reload keeps them), and a row
// recorded while the page is open appears on top, live, while one the filters exclude does
// not. Doctor: a run shows every check with its status, the gateway's own port as ok. Updates:
// against a real local npm registry (verdaccio) holding a newer stub version, the check shows
// it, and an apply, confirmed with from → to, shows the gateway's refusal with its code (the
// install prefix is unwritable on purpose: a real install would copy this checkout's modules).
// axe-core finds no serious violation in what each flow fills in (rows, checks, the check).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './helpers/gateway.js';
import { waitFor } from './helpers/wait.js';
import { PACKAGE, startNpmRegistry, stubPackage, type LocalRegistry } from './helpers/npm-registry.js';
import { axeViolations, chromiumSkipReason, screenshot, startDashboard, type Dashboard } from './helpers/dashboard.js';

const skip = chromiumSkipReason();
const NEWER = `${Number(PACKAGE.version.split('.')[0]) + 1}.0.0`;
let dashboard: Dashboard;
let registry: LocalRegistry;

beforeAll(async () => {
  if (skip) return;
  registry = await startNpmRegistry();
  registry.publish(stubPackage(registry, NEWER));
  dashboard = await startDashboard({ env: { SVC_NPM_REGISTRY: registry.url, SVC_PREFIX: '/dev/null/svc-prefix' } });
}, 120_000);

afterAll(async () => {
  await dashboard?.close();
  registry?.stop();
});

const call = async (method: string, path: string, body?: unknown) => {
  const answer = await api(dashboard.gateway.url, path, { method, ...(body !== undefined && { body }) });
  expect(answer.status, `${method} ${path}`).toBeLessThan(300);
};

/** A change recorded as a slot row (slot.edit_defaults, target chat) that starts and stops nothing. */
const slotRow = () => call('PUT', '/api/install/slots/chat/model', { model: 'tiny' });

describe.skipIf(skip)('Activity, Doctor and Updates pages', () => {
  it('Activity: filters narrow the rows and the URL, and a matching row appears live on top', async () => {
    // The gateway may be starting the slot: let it settle, so no slot.state row lands mid-flow.
    await waitFor(async () => {
      const { json } = await api(dashboard.gateway.url, '/api/slots');
      return ['ready', 'stopped', 'error'].includes((json.slots as Array<{ name: string; state: string }>).find((slot) => slot.name === 'chat')?.state ?? '');
    }, { what: 'slot chat to settle' });
    await slotRow();
    await call('PUT', '/api/updates/channel', { channel: 'nightly' });
    const { page, problems } = await dashboard.open('/activity');
    const rows = page.getByTestId('activity-row');
    await page.locator('[data-testid=activity-row][data-action="settings.update"]').first().waitFor();
    await page.locator('[data-testid=activity-row][data-action="slot.edit_defaults"]').first().waitFor();

    await page.getByTestId('filter-slot').selectOption('chat');
    await page.locator('[data-testid=activity-row][data-action="settings.update"]').first().waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.get('slot')).toBe('chat');
    // The unfiltered rows leave before the filtered page arrives: wait for the filtered rows.
    await expect.poll(async () => [...new Set(await rows.evaluateAll((all) => all.map((row) => row.getAttribute('data-target'))))])
      .toEqual(['chat']);

    await page.getByTestId('filter-type').selectOption('slot.*');
    expect(new URL(page.url()).searchParams.get('type')).toBe('slot.*');
    await page.reload();
    await expect.poll(() => page.getByTestId('filter-type').inputValue()).toBe('slot.*');
    expect(await page.getByTestId('filter-slot').inputValue()).toBe('chat');
    await rows.first().waitFor();
    const before = await rows.count();

    // A change the filters exclude, then one they match: only the second shows, on top.
    await call('PUT', '/api/updates/channel', { channel: 'stable' });
    await slotRow();
    const live = page.locator('[data-testid=activity-row][data-live]');
    await live.first().waitFor();
    expect(await live.count()).toBe(1);
    expect(await rows.first().getAttribute('data-live')).not.toBeNull();
    expect(await live.getAttribute('data-action')).toBe('slot.edit_defaults');
    expect(await rows.count()).toBe(before + 1);
    expect(await page.locator('[data-testid=activity-row][data-action="settings.update"]').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'activity');
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('Doctor: a run shows every check with its status, the gateway port as its own', async () => {
    const { page, problems } = await dashboard.open('/doctor');
    await page.getByTestId('doctor-run').click();
    await page.getByTestId('doctor-summary').waitFor({ timeout: 60_000 });
    const checks = await page.getByTestId('doctor-check').evaluateAll((all) => all.map((li) => ({ id: li.getAttribute('data-id'), status: li.getAttribute('data-status'), hint: li.querySelector('[data-testid=doctor-hint]') !== null })));
    expect(checks.length).toBeGreaterThanOrEqual(10);
    expect(await page.getByTestId('doctor-summary').textContent()).toContain(`${checks.length} checks`);
    expect(checks).toContainEqual({ id: 'config', status: 'ok', hint: false });
    expect(checks).toContainEqual({ id: `port:${dashboard.gateway.port}`, status: 'ok', hint: false });
    for (const check of checks.filter((c) => c.status !== 'ok')) expect(check.hint, check.id ?? '').toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'doctor');
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('Updates: the check shows the newer version; an apply confirms from → to and shows the refusal with its code', async () => {
    await call('PUT', '/api/updates/channel', { channel: 'stable' });
    const { page, problems } = await dashboard.open('/updates');
    expect(await page.getByTestId('update-version').textContent()).toBe(PACKAGE.version);
    await page.getByTestId('update-check').click();
    await page.getByTestId('update-check-result').waitFor();
    expect(await page.getByTestId('update-latest').textContent()).toBe(NEWER);
    expect(await page.getByTestId('update-verdict').textContent()).toContain(`svc ${NEWER} is available`);
    expect(await page.getByTestId('update-rollback').isDisabled()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);

    await page.getByTestId('update-apply').click();
    const dialog = page.getByTestId('confirm');
    expect(await dialog.getByRole('heading').textContent()).toBe(`Update svc ${PACKAGE.version} → ${NEWER}?`);
    expect(await page.getByTestId('update-changes').textContent()).toContain(`svc ${PACKAGE.version} → ${NEWER}`);
    await page.getByTestId('confirm-action').click();
    const refusal = dialog.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.locator('code').textContent()).toBe('update.install_failed');
    expect(await refusal.textContent()).toContain('/dev/null/svc-prefix');
    await screenshot(page, 'updates');
    // The refusal itself is the only thing that went wrong (Chromium logs the 500 as well).
    expect(problems).toContainEqual(expect.stringMatching(/^HTTP 500: POST .*\/api\/updates\/apply$/));
    expect(problems.filter((line) => !/status of 500|HTTP 500: POST .*\/api\/updates\/apply$/.test(line))).toEqual([]);
    await page.close();
  }, 60_000);
});
