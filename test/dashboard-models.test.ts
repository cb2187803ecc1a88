// The Models page in real Chromium against a real gateway pointed at a Hugging Face endpoint
// of our own (test/fixtures/hf-endpoint.mjs, the real wire format): search with quants, sizes
// and fit marks; a pull whose bar reaches 100 % and whose model lands in the registry; a slow
// pull cancelled and resumed from its parts; a bad path's refusal beside the field; a model
// assigned to a slot and another removed, each through its confirmation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './helpers/gateway.js';
import { axeViolations, chromiumSkipReason, screenshot, startDashboard, type Dashboard } from './helpers/dashboard.js';
import { commitOf, paddedGguf, startHf, TINY, type HfEndpoint } from './helpers/hf.js';

const skip = chromiumSkipReason();
const SLOW = paddedGguf(6 * 1024 * 1024);
let hf: HfEndpoint;
let dashboard: Dashboard;

beforeAll(async () => {
  if (skip) return;
  hf = await startHf({
    'org/tiny-GGUF': { commit: commitOf('a'), files: { 'tiny-Q4_K_M.gguf': TINY, 'tiny-Q8_0.gguf': TINY, 'README.md': Buffer.from('# tiny\n') } },
    'org/slow-GGUF': { commit: commitOf('b'), files: { 'slow-Q4_K_M.gguf': SLOW } },
  });
  dashboard = await startDashboard({ env: { SVC_HF_ENDPOINT: hf.url } });
}, 120_000);

afterAll(async () => {
  await dashboard?.close();
  await hf?.close();
});

/** Problems other than the refusals a flow provokes on purpose. */
const unexpected = (problems: string[], expected: RegExp | null = null) => problems.filter((p) => !expected?.test(p));

describe.skipIf(skip)('the Models page', () => {
  it('searches the hub, pulls a quant to 100 % and shows it in the registry', async () => {
    const { page, problems, settled } = await dashboard.open('/models');
    await page.getByTestId('model-tiny').waitFor();
    await page.getByTestId('search-text').fill('tiny');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const result = page.getByTestId('result-org/tiny-GGUF');
    await result.waitFor();
    const q8 = result.getByTestId('quant-Q8_0');
    expect(await q8.locator('td').nth(2).textContent()).toBe(`${(TINY.length / 1024).toFixed(0)} KiB`);
    expect(await q8.getByTestId('fit').textContent()).toBe('fits');
    expect(await result.getByTestId('quant-Q4_K_M').count()).toBe(1);
    // The buttons' column is named for screen readers only (the table component's hidden column).
    const pullHead = result.getByRole('columnheader', { name: 'pull', exact: true });
    expect((await pullHead.locator('span').boundingBox())?.width).toBeLessThanOrEqual(1);

    await q8.getByRole('button', { name: 'pull Q8_0 of org/tiny-GGUF' }).click();
    expect(await page.getByTestId('pull-ref').inputValue()).toBe('org/tiny-GGUF:Q8_0');
    expect(await page.getByTestId('pull-id').inputValue()).toBe('tiny-q8_0');
    // The dry run reads the file's header: the fit with the KV cache counted, before any fetch.
    await page.getByTestId('pull-check').click();
    const plan = page.getByTestId('pull-plan');
    expect(await plan.getByTestId('plan-fit').textContent()).toMatch(/^fits \d+ MiB of \d+ MiB$/);
    expect(await plan.textContent()).toContain('llama · Q8_0 · context 32,768');
    expect(await plan.getByTestId('plan-refusal').count()).toBe(0);
    await page.getByTestId('pull-start').click();
    const job = page.getByTestId('pull-tiny-q8_0');
    await job.and(page.locator('[data-state="done"]')).waitFor();
    await job.getByRole('progressbar', { name: 'tiny-q8_0 downloaded' }).and(page.locator('[aria-valuenow="100"]')).waitFor();
    expect(await job.getByTestId('pull-file-tiny-Q8_0.gguf').getByTestId('file-bytes').textContent()).toContain('100%');
    // The registry row comes from the pull's completion event, not a reload.
    const row = page.getByTestId('model-tiny-q8_0');
    await row.waitFor();
    expect(await row.locator('td').nth(1).textContent()).toBe('Q8_0');
    expect(await row.locator('td').nth(2).textContent()).toBe('llama');
    expect((await api(dashboard.gateway.url, '/api/models/tiny-q8_0')).json).toMatchObject({ source: 'pull', hf_repo: 'org/tiny-GGUF', quant: 'Q8_0' });
    await settled();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'models');
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('cancels a slow pull and resumes it from the parts on disk', async () => {
    const { page, problems } = await dashboard.open('/models');
    hf.faults.bytesPerSecond = 512 * 1024;
    try {
      await page.getByTestId('pull-ref').fill('org/slow-GGUF:Q4_K_M');
      expect(await page.getByTestId('pull-id').inputValue()).toBe('slow-q4_k_m');
      await page.getByTestId('pull-start').click();
      const job = page.getByTestId('pull-slow-q4_k_m');
      await job.and(page.locator('[data-state="downloading"]')).waitFor();
      // Progress arrives on the pull's own stream: wait for the bar to move off zero.
      await job.locator('[role="progressbar"]:not([aria-valuenow="0"])').first().waitFor();
      // Each file's line says its rate and time left while it downloads.
      await job.getByTestId('pull-file-slow-Q4_K_M.gguf').getByText(/\/s · ETA \d+s/).waitFor();
      await job.getByTestId('pull-cancel').click();
      await job.and(page.locator('[data-state="cancelled"]')).waitFor();
      expect(await job.getByTestId('pull-discard').count()).toBe(1);
      const cancelled = (await api(dashboard.gateway.url, '/api/models/slow-q4_k_m/pull/status')).json;
      expect(cancelled.state).toBe('cancelled');
      expect(cancelled.bytes_done).toBeGreaterThan(0);
      expect(cancelled.bytes_done).toBeLessThan(SLOW.length);
    } finally {
      hf.faults.bytesPerSecond = 0;
    }
    await page.getByTestId('pull-slow-q4_k_m').getByTestId('pull-resume').click();
    const job = page.getByTestId('pull-slow-q4_k_m');
    await job.and(page.locator('[data-state="done"]')).waitFor();
    expect(await job.textContent()).toContain('resumed from parts on disk');
    const done = (await api(dashboard.gateway.url, '/api/models/slow-q4_k_m/pull/status')).json;
    expect(done).toMatchObject({ state: 'done', resumed: true, bytes_done: SLOW.length, sha256: hf.sha256(SLOW) });
    expect(done.bytes_fetched).toBeLessThan(SLOW.length);
    await page.getByTestId('model-slow-q4_k_m').waitFor();
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('shows the server\'s refusal of a bad path beside the field', async () => {
    const { page, problems } = await dashboard.open('/models');
    const form = page.getByTestId('register');
    await form.getByTestId('register-id').fill('bad');
    await form.getByTestId('register-path').fill('/nowhere/bad.gguf');
    await form.getByRole('button', { name: 'Register' }).click();
    const problem = form.getByTestId('problem-path');
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/^model\.path_missing: /);
    expect(await form.getByTestId('register-path').getAttribute('aria-invalid')).toBe('true');
    // As the user types again, the old refusal goes; an emptied field is the schema's problem.
    await form.getByTestId('register-path').fill('');
    expect(await problem.textContent()).not.toMatch(/path_missing/);
    expect(await form.getByRole('button', { name: 'Register' }).isDisabled()).toBe(true);
    // The refusal itself, as the page and its console saw it, and nothing else.
    expect(problems.filter((p) => /HTTP 400: POST .*\/api\/models$/.test(p))).toHaveLength(1);
    expect(unexpected(problems, /HTTP 400: POST .*\/api\/models$|status of 400 \(Bad Request\)/)).toEqual([]);
    await page.close();
  }, 30_000);

  it('fits a phone with pulls and search results shown', async () => {
    const { page, problems, settled } = await dashboard.open('/models', { width: 375, height: 740 });
    await page.getByTestId('pull-tiny-q8_0').waitFor();
    await page.getByTestId('search-text').fill('GGUF');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByTestId('result-org/slow-GGUF').waitFor();
    await settled();
    const [scroll, client] = await page.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
      return [root.scrollWidth, root.clientWidth];
    });
    await screenshot(page, 'phone-models');
    expect(scroll).toBeLessThanOrEqual(client);
    expect(problems).toEqual([]);
    await page.close();
  }, 30_000);

  it('assigns a model to a slot and removes another, each after its confirmation', async () => {
    const { page, problems } = await dashboard.open('/models');
    const pulled = page.getByTestId('model-tiny-q8_0');
    await pulled.getByTestId('assign-slot').selectOption('chat');
    await pulled.getByTestId('assign').click();
    const assign = page.getByTestId('confirm');
    expect(await assign.textContent()).toContain("chat's default model becomes tiny-q8_0");
    await assign.getByTestId('confirm-action').click();
    await pulled.getByTestId('used-by').getByText('chat', { exact: true }).waitFor();
    expect((await api(dashboard.gateway.url, '/api/models/tiny-q8_0')).json.used_by).toEqual(['chat']);

    const slow = page.getByTestId('model-slow-q4_k_m');
    await slow.getByTestId('remove').click();
    const remove = page.getByTestId('confirm');
    const changes = await remove.getByTestId('remove-changes').textContent();
    expect(changes).toContain('The registry entry slow-q4_k_m goes; the file stays at');
    expect(changes).toContain('No slot uses it.');
    await remove.getByTestId('confirm-action').click();
    await slow.waitFor({ state: 'detached' });
    expect((await api(dashboard.gateway.url, '/api/models/slow-q4_k_m')).status).toBe(404);
    expect(problems).toEqual([]);
    await page.close();
  }, 30_000);
});
