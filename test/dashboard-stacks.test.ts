// The Profiles & stacks page in real Chromium against a real gateway (built-in engine, tiny
// model): a stack's dry run shows its per-slot diff, the apply follows its events to done
// and the slots match; the active stack's drift shows live; a seed profile is cloned, edited
// with a bad value (the browser's check and the server's refusal each beside its field) and
// deleted, the confirm naming the slot that uses it; a stack is exported, its file imported
// with its checksum checked, a changed file refused; the live slots are snapshotted.
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './helpers/gateway.js';
import { axeViolations, chromiumSkipReason, screenshot, startDashboard, type Dashboard } from './helpers/dashboard.js';

const skip = chromiumSkipReason();
let dashboard: Dashboard;
const cpu = { device: 'cpu', provider: 'builtin' };
/** The problems a refused request leaves (its HTTP status and Chromium's console line about it), taken off the list. */
function takeRefusal(problems: string[], method: string, path: string): { refused: boolean; others: string[] } {
  const taken = problems.splice(0);
  const refusal = (p: string) => p.startsWith(`HTTP 400: ${method} `) && p.endsWith(path);
  return { refused: taken.some(refusal), others: taken.filter((p) => !refusal(p) && !p.startsWith('console: Failed to load resource: the server responded with a status of 400')) };
}
const send = (method: string, path: string, body?: unknown) => api(dashboard.gateway.url, path, { method, ...(body !== undefined && { body }) });

beforeAll(async () => {
  if (skip) return;
  dashboard = await startDashboard();
  // A user stack that edits the running slot (one field) and creates another.
  const created = await send('POST', '/api/stacks', { slug: 'pair', name: 'Pair', slots: [{ slot: 'chat', model: 'tiny', enable_thinking: false, ...cpu }, { slot: 'helper', model: 'tiny', ...cpu }] });
  expect(created.status, created.text).toBe(201);
}, 120_000);

afterAll(async () => {
  await dashboard?.close();
});

describe.skipIf(skip)('Profiles & stacks in Chromium', () => {
  it('shows a dry run per slot, applies it live to done, the slots match, and the drift shows', async () => {
    const { page, problems, settled } = await dashboard.open('/stacks');
    await page.getByRole('heading', { level: 1, name: 'Profiles & stacks' }).waitFor();
    expect(await page.title()).toBe('svc · Profiles & stacks');
    await page.getByTestId('active-stack').and(page.locator('[data-status="none"]')).waitFor();
    await page.getByTestId('stack-pair').getByRole('link', { name: 'Plan & apply…' }).click();
    const chat = page.getByTestId('plan-chat');
    await chat.and(page.locator('[data-action="edit"][data-runtime="restart"]')).waitFor();
    expect(await chat.locator('.diff-add').allTextContents()).toEqual(['+ slot.enable_thinking = false\n']);
    const helper = page.getByTestId('plan-helper');
    await helper.and(page.locator('[data-action="create"][data-runtime="load"]')).waitFor();
    expect(await helper.locator('.diff-add').allTextContents()).toContain('+ model.default = tiny\n');
    expect(await send('GET', '/api/slots/helper').then((r) => r.status)).toBe(404);
    await settled();
    expect(await axeViolations(page)).toEqual([]);

    await page.getByTestId('apply').click();
    const changes = page.getByTestId('apply-changes');
    await changes.waitFor();
    expect(await changes.locator('li').allTextContents()).toEqual(['chat: edit the slot file, restart it', 'helper: create the slot file, start it']);
    await page.getByTestId('confirm-action').click();
    await page.locator('[data-testid="apply-progress"][data-phase="done"]').waitFor({ timeout: 60_000 });
    for (const slot of ['chat', 'helper']) {
      await page.locator(`[data-testid="result-${slot}"][data-ok="true"]`).waitFor();
      await page.locator(`[data-testid="match-${slot}"][data-match="true"]`).waitFor({ timeout: 30_000 });
    }
    expect((await send('GET', '/api/slots/helper')).json).toMatchObject({ state: 'ready', model: 'tiny' });
    expect(await page.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    // The progress came from the apply's events: started, committed, one per slot, completed.
    await expect.poll(() => page.getByTestId('apply-progress').getAttribute('data-events')).toBe('5');
    await screenshot(page, 'stacks-apply');

    await page.getByRole('link', { name: '← Profiles & stacks' }).click();
    await page.locator('[data-testid="active-stack"][data-status="clean"][data-stack="pair"]').waitFor();
    // A slot edited by hand after the apply: the page shows the drift as it happens.
    expect((await send('PUT', '/api/slots/helper', { ctx_size: 1024 })).status).toBe(200);
    await page.locator('[data-testid="active-stack"][data-status="modified"]').waitFor();
    expect(await page.getByTestId('drifted').textContent()).toBe('helper');
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('clones a seed profile, shows bad values beside their fields, saves, and deletes it naming its slot', async () => {
    const { page, problems } = await dashboard.open('/stacks');
    const seed = page.getByTestId('profile-cpu-llm');
    await seed.getByText('seed · immutable').waitFor();
    expect(await seed.getByRole('button', { name: 'Edit profile cpu-llm' }).count()).toBe(0);
    await seed.getByRole('button', { name: 'Clone profile cpu-llm' }).click();

    const name = page.getByLabel('Name of the copy');
    await name.fill('Bad Name');
    await page.getByTestId('problem-name').waitFor();
    await name.fill('mine');
    await page.getByTestId('clone-form').getByRole('button', { name: 'Clone' }).click();
    await page.waitForURL('**/stacks/profiles/mine/edit');

    // The browser's check (the server's zod schema) as the user types: no request is sent.
    const image = page.getByLabel('Image');
    const was = await image.inputValue();
    await image.fill('NOT AN IMAGE');
    expect(await page.getByTestId('problem-image').textContent()).toMatch(/container image reference/);
    await image.fill(was);
    await page.getByTestId('problem-image').waitFor({ state: 'detached' });
    // A flag svc owns passes the schema; the server refuses it, beside the flags field.
    const flags = page.getByLabel('Engine flags');
    await flags.fill(`${await flags.inputValue()} --port 9`);
    await page.getByTestId('profile-save').click();
    expect(await page.getByTestId('problem-flags').textContent()).toMatch(/--port/);
    await page.getByRole('alert').filter({ hasText: 'config.invalid' }).waitFor();
    expect(takeRefusal(problems, 'PUT', '/api/profiles/mine')).toEqual({ refused: true, others: [] });
    await flags.fill('-b 128 --jinja');
    await page.getByTestId('profile-save').click();
    await page.getByTestId('profile-saved').waitFor();
    await screenshot(page, 'stacks-profile-edit');
    expect((await send('GET', '/api/profiles/mine')).json).toMatchObject({ flags: '-b 128 --jinja', cloned_from: 'cpu-llm', seed: false });

    // A slot that uses it: the delete confirm says so before anything changes.
    expect((await send('PUT', '/api/slots/helper', { profile: 'mine' })).status).toBe(200);
    await page.getByRole('link', { name: '← Profiles & stacks' }).click();
    const row = page.getByTestId('profile-mine');
    await row.getByRole('cell', { name: 'helper' }).waitFor();
    await row.getByRole('button', { name: 'Delete profile mine' }).click();
    expect(await page.getByTestId('delete-used-by').textContent()).toContain('helper');
    await page.getByTestId('confirm-action').click();
    await row.waitFor({ state: 'detached' });
    expect((await send('GET', '/api/profiles/mine')).status).toBe(404);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('exports a stack as a file, imports it with its checksum checked, refuses a changed one, and snapshots', async () => {
    const { page, problems } = await dashboard.open('/stacks');
    const download = page.waitForEvent('download');
    await page.getByTestId('export-pair').click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('pair.svcstack.json');
    const path = join(tmpdir(), `svc-dash-${process.pid}-pair.svcstack.json`);
    await file.saveAs(path);
    const envelope = JSON.parse(readFileSync(path, 'utf8'));
    expect(envelope).toMatchObject({ kind: 'svc.stack', checksum: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), stack: { slug: 'pair' } });

    const form = page.getByTestId('import-form');
    await page.getByTestId('import-file').setInputFiles(path);
    await form.locator('[data-testid="import-checksum"][data-result="matches"]').waitFor();
    await page.getByTestId('import-slug').fill('pair-copy');
    await form.getByRole('button', { name: 'Import' }).click();
    await page.locator('[data-testid="import-result"][data-slug="pair-copy"]').waitFor();
    expect(await page.getByTestId('import-model-tiny').textContent()).toBe('here');
    await page.getByTestId('stack-pair-copy').waitFor();

    // The same file changed after export: flagged here, refused by the gateway.
    writeFileSync(path, JSON.stringify({ ...envelope, stack: { ...envelope.stack, name: 'Changed' } }));
    await page.getByTestId('import-file').setInputFiles(path);
    await form.locator('[data-testid="import-checksum"][data-result="differs"]').waitFor();
    await page.getByTestId('import-slug').fill('pair-changed');
    await form.getByRole('button', { name: 'Import' }).click();
    await form.getByRole('alert').filter({ hasText: 'stacks.bad_envelope' }).waitFor();
    expect(takeRefusal(problems, 'POST', '/api/stacks/import')).toEqual({ refused: true, others: [] });
    expect((await send('GET', '/api/stacks/pair-changed')).status).toBe(404);

    const snapshot = page.getByTestId('snapshot-form');
    await snapshot.getByLabel('Slug').fill('now');
    await snapshot.getByRole('button', { name: 'Save snapshot' }).click();
    await page.getByTestId('snapshot-saved').waitFor();
    const card = page.getByTestId('stack-now');
    await card.getByText('helper').first().waitFor();
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
