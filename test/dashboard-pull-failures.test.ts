// The Models page in real Chromium when the gateway cannot reach its Hugging Face endpoint (a
// closed port): a search fails as a search (model.search_failed), naming the endpoint, not as a
// pull; a pull that fails before it has a file list offers Retry, not Resume (there are no
// parts to resume); and a failed pull is dismissed from the list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './helpers/gateway.js';
import { chromiumSkipReason, startDashboard, type Dashboard } from './helpers/dashboard.js';
import { freePort } from './helpers/ports.js';

const skip = chromiumSkipReason();
let dashboard: Dashboard;
let endpoint: string;

beforeAll(async () => {
  if (skip) return;
  endpoint = `http://127.0.0.1:${await freePort()}`;
  dashboard = await startDashboard({ env: { SVC_HF_ENDPOINT: endpoint } });
}, 120_000);

afterAll(async () => {
  await dashboard?.close();
});

/** The 502s the flows provoke on purpose, as the page's console reports them. */
const provoked = /HTTP 502: GET .*\/api\/models\/search|status of 502 \(Bad Gateway\)/;

describe.skipIf(skip)('the Models page without a reachable endpoint', () => {
  it('labels a failed search as a search failure, naming the endpoint and how to set another', async () => {
    const { page, problems } = await dashboard.open('/models');
    await page.getByTestId('search-text').fill('qwen');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const note = page.getByTestId('search').getByRole('alert');
    await note.waitFor();
    const text = await note.textContent();
    expect(text).toMatch(/^model\.search_failed searching for "qwen" failed: cannot reach the Hugging Face endpoint /);
    expect(text).toContain(endpoint);
    expect(text).toContain('SVC_HF_ENDPOINT');
    expect(text).not.toContain('model.pull_failed');
    expect((await api(dashboard.gateway.url, '/api/models/pulls')).json.pulls).toEqual([]);
    expect(problems.filter((p) => !provoked.test(p))).toEqual([]);
    await page.close();
  }, 60_000);

  it('a pull that failed before its file list offers Retry, not Resume, and Dismiss takes it off the list', async () => {
    const { page, problems } = await dashboard.open('/models');
    await page.getByTestId('pull-ref').fill('org/tiny-GGUF:Q8_0');
    await page.getByTestId('pull-start').click();
    const job = page.getByTestId('pull-tiny-q8_0');
    await job.and(page.locator('[data-state="failed"]')).waitFor();
    expect(await job.textContent()).toContain(`cannot reach the Hugging Face endpoint ${endpoint}`);
    expect(await job.getByTestId('pull-resume').count()).toBe(0);
    expect(await job.getByTestId('pull-retry').count()).toBe(1);
    await job.getByTestId('pull-dismiss').click();
    await job.waitFor({ state: 'detached' });
    expect((await api(dashboard.gateway.url, '/api/models/pulls')).json.pulls).toEqual([]);
    expect(problems.filter((p) => !provoked.test(p))).toEqual([]);
    await page.close();
  }, 60_000);
});
