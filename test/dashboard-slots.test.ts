// The Slots page in real Chromium against a real gateway (the built-in engine on the tiny
// model): a slot created through the form (a problem from the browser's zod check as the
// user types, then one the server finds, each beside its field), loaded and seen turning
// ready on its detail, on the list and on the Overview, its engine log lines arriving live,
// only the runtime action its state allows enabled (load when stopped; unload, restart when ready),
// unloaded, disabled and enabled again, edited, and deleted after a confirmation that says
// what goes; a refused Create brought into view (the problem focused, a summary at the top),
// each slot type's form with only the keys it uses; a slot file key without a field of its
// own set and cleared through the generated controls, a server problem beside it. The
// detail, the list and the Overview stay open the whole time: what they show comes from the
// event stream, not from reloads.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './helpers/gateway.js';
import { waitFor } from './helpers/wait.js';
import { axeViolations, chromiumSkipReason, screenshot, startDashboard, type Dashboard } from './helpers/dashboard.js';

const skip = chromiumSkipReason();
let dashboard: Dashboard;

beforeAll(async () => {
  if (skip) return;
  dashboard = await startDashboard();
}, 120_000);

afterAll(async () => {
  await dashboard?.close();
});

const slotFile = (name: string) => join(dashboard.home.configRoot, 'slots', `${name}.toml`);

describe.skipIf(skip)('dashboard Slots page in Chromium', () => {
  it('creates, loads, follows, unloads, disables, edits and deletes a slot', async () => {
    const list = await dashboard.open('/slots');
    const overview = await dashboard.open('/');
    const { page, problems, settled } = await dashboard.open('/slots');
    await page.getByTestId('slot-row-chat').waitFor();
    expect(await page.title()).toBe('svc · Slots');
    await page.getByTestId('new-slot').click();
    await page.getByRole('heading', { name: 'New slot' }).waitFor();

    // As the user types: the server's own name rule, from zod in the browser, beside the field.
    const name = page.getByLabel('Name');
    await name.fill('Extra Slot');
    await page.getByTestId('problem-name').filter({ hasText: 'expected a slot name' }).waitFor();
    await name.fill('extra');
    await page.getByTestId('problem-name').waitFor({ state: 'detached' });
    await page.getByLabel('Model').fill('tiny');
    await page.getByLabel('Engine (provider)').selectOption('builtin');
    await page.getByLabel('Device').selectOption('cpu');
    await page.getByLabel('Context size').fill('512');
    // A port zod lets through (1-65535) but a slot file may not have: the server's problem, beside the port.
    await page.getByLabel('Port').fill('8300');
    await page.getByTestId('slot-form-submit').click();
    await page.getByTestId('problem-port').filter({ hasText: 'expected <= 8200' }).waitFor();
    expect(await page.getByRole('alert').filter({ hasText: 'config.invalid' }).count()).toBe(1);
    expect(existsSync(slotFile('extra'))).toBe(false);
    await screenshot(page, 'slots-new-problem');
    expect(await axeViolations(page)).toEqual([]);

    await page.getByLabel('Port').fill('');
    await page.getByTestId('slot-form-submit').click();
    await page.getByRole('heading', { name: 'Slot extra' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/slots/extra');
    expect(existsSync(slotFile('extra'))).toBe(true);
    await page.getByTestId('slot-note').first().filter({ hasText: 'Created (engine builtin)' }).waitFor();
    await page.locator('[data-testid="detail-state"][data-state="stopped"]').waitFor();
    await list.page.getByTestId('slot-row-extra').waitFor();
    await overview.page.getByTestId('slot-extra').waitFor();
    // The engine never ran: its log is empty until the load below writes to it.
    const log = page.getByTestId('engine-log');
    await page.getByTestId('log-state').filter({ hasText: 'following live' }).waitFor();
    expect(await log.textContent()).toContain('no lines yet');
    // Only what the state allows: a stopped slot is loaded, not unloaded or restarted.
    const enabled = async () => Object.fromEntries(await Promise.all(['load', 'unload', 'restart'].map(async (a) => [a, await page.getByTestId(`action-${a}`).isEnabled()])));
    expect(await enabled()).toEqual({ load: true, unload: false, restart: false });
    expect(await page.getByTestId('action-unload').getAttribute('title')).toBe('not running');

    await page.getByTestId('action-load').click();
    await page.locator('[data-testid="detail-state"][data-state="ready"]').waitFor({ timeout: 60_000 });
    await list.page.locator('[data-testid="slot-row-extra"][data-state="ready"]').waitFor();
    await overview.page.locator('[data-testid="slot-extra"][data-state="ready"]').waitFor();
    const written = (await api(dashboard.gateway.url, '/api/slots/extra/logs')).json.lines as string[];
    expect(written.length).toBeGreaterThan(0);
    await log.filter({ hasText: written.at(-1)! }).waitFor();
    await page.getByTestId('action-load').waitFor({ state: 'attached' });
    await waitFor(enabled, { what: 'a ready slot\'s actions', until: (now) => JSON.stringify(now) === JSON.stringify({ load: false, unload: true, restart: true }) });
    expect(await page.getByTestId('action-load').getAttribute('title')).toBe('already loaded');
    await settled();
    await screenshot(page, 'slots-detail');
    expect(await axeViolations(page)).toEqual([]);

    await page.getByTestId('action-unload').click();
    await page.locator('[data-testid="detail-state"][data-state="stopped"]').waitFor({ timeout: 30_000 });
    await list.page.locator('[data-testid="slot-row-extra"][data-state="stopped"]').waitFor();

    // Disable says what it changes; the state turns disabled; enable brings it back.
    await page.getByTestId('action-disable').click();
    await page.getByTestId('confirm-changes').filter({ hasText: 'slots/extra.toml: [slot].enabled becomes false' }).waitFor();
    await page.getByTestId('confirm-action').click();
    await page.locator('[data-testid="detail-state"][data-state="disabled"]').waitFor();
    await list.page.locator('[data-testid="slot-row-extra"][data-state="disabled"]').waitFor();
    await page.getByTestId('action-enable').click();
    await page.locator('[data-testid="detail-state"][data-state="stopped"]').waitFor();

    // Edit: only the changed field is sent; the detail says what changed.
    await page.getByTestId('action-edit').click();
    await page.getByRole('heading', { name: 'Edit slot extra' }).waitFor();
    expect(await page.getByLabel('Context size').inputValue()).toBe('512');
    await page.getByLabel('Context size').fill('1024');
    await page.getByTestId('slot-form-submit').click();
    await page.getByTestId('slot-note').filter({ hasText: 'model.context_size: 512 → 1024' }).waitFor();
    expect((await api(dashboard.gateway.url, '/api/slots/extra')).json.config.model.context_size).toBe(1024);

    // Delete: the confirmation names the file that goes and what is kept.
    await page.getByTestId('action-delete').click();
    const changes = page.getByTestId('confirm-changes');
    await changes.waitFor();
    expect(await changes.getByRole('listitem').allTextContents()).toEqual([
      'slots/extra.toml is removed',
      'requests for extra or tiny are no longer served by it',
      'its state directory (engine.log, state.json) is kept',
    ]);
    await page.getByTestId('confirm-action').click();
    await page.getByRole('heading', { name: 'Slots', exact: true }).waitFor();
    await page.getByTestId('slot-row-extra').waitFor({ state: 'detached' });
    await list.page.getByTestId('slot-row-extra').waitFor({ state: 'detached' });
    await overview.page.getByTestId('slot-extra').waitFor({ state: 'detached' });
    expect(existsSync(slotFile('extra'))).toBe(false);

    // The one refusal the flow asked for (the bad port), nothing else.
    // (Chromium also logs a refused request on its console.)
    expect(problems).toEqual([`HTTP 400: POST ${dashboard.gateway.url}/api/slots`, 'console: Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    expect([...list.problems, ...overview.problems]).toEqual([]);
    for (const opened of [page, list.page, overview.page]) await opened.close();
  }, 150_000);

  it('a refused Create shows its problem where the user is, and a slot form shows only the fields its type uses', async () => {
    const { page, problems } = await dashboard.open('/slots/new', { width: 1280, height: 700 });
    await page.getByRole('heading', { name: 'New slot' }).waitFor();
    const fields = () => page.locator('[data-field]').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-field')));
    // An llm slot (the default type): no NPU, image or TTS key, no deprecated rope_freq_base.
    const llm = await fields();
    expect(llm.filter((path) => /^(npu|image)\.|^slot\.default_(voice|speed|response_format)$|^model\.rope_freq_base$/.test(path ?? ''))).toEqual([]);
    expect(llm).toEqual(expect.arrayContaining(['name', 'model', 'ctx_size', 'slot.enable_thinking', 'slot.workers']));
    await screenshot(page, 'slots-new');
    // Each type (and the NPU device) brings its own keys, and takes away what it does not use.
    await page.getByLabel('Type').selectOption('tts');
    await page.getByLabel('default_voice', { exact: true }).waitFor();
    expect(await fields()).not.toEqual(expect.arrayContaining(['ctx_size']));
    expect(await fields()).not.toEqual(expect.arrayContaining(['slot.enable_thinking']));
    await page.getByLabel('Type').selectOption('image');
    await page.getByLabel('default_size', { exact: true }).waitFor();
    expect(await page.getByLabel('default_voice', { exact: true }).count()).toBe(0);
    await page.getByLabel('Type').selectOption('');
    await page.getByLabel('Device').selectOption('npu');
    await page.getByLabel('asr', { exact: true }).waitFor();
    await page.getByLabel('Device').selectOption('cpu');
    expect(await page.getByLabel('asr', { exact: true }).count()).toBe(0);

    // The user is at the Create button at the foot of the form when the server refuses it.
    await page.getByLabel('Name').fill('refused');
    await page.getByLabel('Model').fill('tiny');
    await page.getByLabel('Port').fill('8300');
    await page.getByTestId('slot-form-submit').scrollIntoViewIfNeeded();
    await page.getByTestId('slot-form-submit').click();
    const problem = page.getByTestId('problem-port').filter({ hasText: 'expected <= 8200' });
    await problem.waitFor();
    const inView = (testId: string) =>
      page.getByTestId(testId).evaluate((node) => {
        const box = node.getBoundingClientRect();
        return box.top >= 0 && box.bottom <= (globalThis as unknown as { innerHeight: number }).innerHeight;
      });
    await waitFor(() => inView('problem-port'), { what: 'the port problem scrolled into view' });
    // Focus moves to the field to fix; the summary at the top names the problem, linked to its field.
    expect(await page.getByLabel('Port').evaluate((node) => node === (node.ownerDocument as unknown as { activeElement: unknown }).activeElement)).toBe(true);
    const summary = page.getByTestId('form-summary');
    expect(await summary.textContent()).toContain('config.invalid');
    expect(await summary.getByRole('link', { name: /Port/ }).count()).toBe(1);
    await screenshot(page, 'slots-new-refused');
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([`HTTP 400: POST ${dashboard.gateway.url}/api/slots`, 'console: Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    await page.close();
  }, 60_000);

  it('fits a phone (375 px) with no axe violation: the detail, the edit form and the create form', async () => {
    const found: string[] = [];
    for (const path of ['/slots/chat', '/slots/chat/edit', '/slots/new']) {
      const { page, problems, settled } = await dashboard.open(path, { width: 375, height: 740 });
      await page.getByRole('heading', { level: 1 }).waitFor();
      await (path === '/slots/chat' ? page.getByTestId('slot-facts') : page.getByTestId('slot-form')).waitFor();
      await settled();
      const [scroll, client] = await page.evaluate(() => {
        const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
        return [root.scrollWidth, root.clientWidth];
      });
      if (scroll > client) found.push(`${path}: ${scroll} px wide in a ${client} px viewport`);
      found.push(...(await axeViolations(page)).map((v) => `${path}: ${v}`), ...problems.map((p) => `${path}: ${p}`));
      if (path === '/slots/chat/edit') await screenshot(page, 'slots-edit-phone');
      await page.close();
    }
    expect(found).toEqual([]);
  }, 60_000);

  it('sets and clears a slot file key the form has no field of its own for, a server problem beside its field', async () => {
    const { page, problems } = await dashboard.open('/slots/chat/edit');
    await page.getByRole('heading', { name: 'Edit slot chat' }).waitFor();
    const idle = page.getByLabel('idle_timeout_s', { exact: true });
    expect(await idle.inputValue()).toBe('');
    // As typed: the slot file schema's own rule, in the browser.
    await idle.fill('-5');
    await page.getByTestId('problem-slot.idle_timeout_s').filter({ hasText: '>=0' }).waitFor();
    await idle.fill('900');
    await page.getByTestId('problem-slot.idle_timeout_s').waitFor({ state: 'detached' });
    // RPC workers are a llama-server flag: the schema lets a worker through, the server's rule for a built-in slot does not.
    await page.getByLabel('rpc_workers', { exact: true }).fill('127.0.0.1:50052');
    await page.getByTestId('slot-form-submit').click();
    await page.getByTestId('problem-slot.rpc_workers').filter({ hasText: 'only llama-server spreads a model over RPC workers' }).waitFor();
    expect(readFileSync(slotFile('chat'), 'utf8')).not.toContain('idle_timeout_s');
    await page.getByLabel('rpc_workers', { exact: true }).fill('');
    await page.getByTestId('problem-slot.rpc_workers').waitFor({ state: 'detached' });
    await page.getByTestId('slot-form-submit').click();
    await page.getByTestId('slot-note').filter({ hasText: 'slot.idle_timeout_s: null → 900' }).waitFor();
    expect(readFileSync(slotFile('chat'), 'utf8')).toMatch(/^idle_timeout_s = 900$/m);
    expect((await api(dashboard.gateway.url, '/api/slots/chat')).json.idle_timeout_s).toBe(900);

    // Emptied, the key leaves the file and the gateway's default applies again.
    await page.getByTestId('action-edit').click();
    await page.getByRole('heading', { name: 'Edit slot chat' }).waitFor();
    expect(await idle.inputValue()).toBe('900');
    await idle.fill('');
    await page.getByTestId('slot-form-submit').click();
    await page.getByTestId('slot-note').filter({ hasText: 'slot.idle_timeout_s: 900 → null' }).waitFor();
    expect(readFileSync(slotFile('chat'), 'utf8')).not.toContain('idle_timeout_s');
    expect(problems).toEqual([`HTTP 400: PUT ${dashboard.gateway.url}/api/slots/chat`, 'console: Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    await page.close();
  }, 60_000);

  it('swaps a slot to another registry model, then deletes it running, its engine named in the confirmation', async () => {
    const tiny = (await api(dashboard.gateway.url, '/api/models')).json.models[0].path as string;
    expect((await api(dashboard.gateway.url, '/api/models', { method: 'POST', body: { id: 'tiny-b', path: tiny } })).status).toBe(201);
    const { page, problems } = await dashboard.open('/slots/chat');
    await page.locator('[data-testid="detail-state"][data-state="ready"]').waitFor({ timeout: 60_000 });
    await page.getByTestId('swap-form').getByLabel('Model', { exact: true }).selectOption('tiny-b');
    await page.getByRole('button', { name: 'Swap' }).click();
    await page.getByTestId('slot-model').filter({ hasText: 'tiny-b' }).waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="detail-state"][data-state="ready"]').waitFor({ timeout: 60_000 });
    expect((await api(dashboard.gateway.url, '/api/slots/chat')).json.config.model.default).toBe('tiny-b');

    const pid = (await api(dashboard.gateway.url, '/api/slots/chat')).json.pid as number;
    await page.getByTestId('action-delete').click();
    await page.getByTestId('confirm-changes').filter({ hasText: `its running engine (pid ${pid}, port` }).waitFor();
    await page.getByTestId('confirm-action').click();
    await page.getByRole('heading', { name: 'Slots', exact: true }).waitFor();
    await page.getByText('No slots yet').waitFor();
    expect((await api(dashboard.gateway.url, '/api/slots')).json.slots).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);
});
