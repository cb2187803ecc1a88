// Every page of the dashboard, found by following its nav (so a page added later is covered
// without touching this file), in real Chromium on a fresh gateway: it loads with no console
// error or failed request, axe-core finds no serious or critical violation, it fits a
// phone's width without sideways scrolling, and the keyboard reaches its controls. A
// screenshot of each is written to test-results/dashboard/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/** The nav's links, as the Overview shows them. */
async function navLinks(): Promise<Array<{ path: string; title: string }>> {
  const { page } = await dashboard.open('/');
  await page.getByRole('navigation').waitFor();
  const links = await page.getByRole('navigation').getByRole('link').evaluateAll((anchors) => anchors.map((a) => ({ path: a.getAttribute('href') ?? '', title: a.textContent ?? '' })));
  await page.close();
  return links;
}

describe.skipIf(skip)('every dashboard page in Chromium', () => {
  it('loads each page with no console error, no axe violation, and a screenshot', async () => {
    const links = await navLinks();
    expect(links.map((l) => l.path)).toEqual(expect.arrayContaining(['/', '/slots', '/models', '/stacks', '/settings', '/access', '/activity', '/playground', '/doctor', '/updates']));
    const found: string[] = [];
    for (const { path, title } of links) {
      const { page, problems, settled } = await dashboard.open(path);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      expect(await page.title(), path).toBe(`svc · ${title}`);
      // Let the page's reads settle before judging it.
      await settled();
      found.push(...(await axeViolations(page)).map((v) => `${path}: ${v}`));
      found.push(...problems.map((p) => `${path}: ${p}`));
      await screenshot(page, path === '/' ? 'overview' : path.slice(1));
      await page.close();
    }
    expect(found).toEqual([]);
  }, 240_000);

  it('fits a phone (375 px) without sideways scrolling, nav included', async () => {
    const links = await navLinks();
    const wide: string[] = [];
    for (const { path } of links) {
      const { page, problems, settled } = await dashboard.open(path, { width: 375, height: 740 });
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await settled();
      const [scroll, client] = await page.evaluate(() => {
        const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
        return [root.scrollWidth, root.clientWidth];
      });
      if (scroll > client) wide.push(`${path}: ${scroll} px wide in a ${client} px viewport`);
      if (path === '/slots' || path === '/') await screenshot(page, `phone-${path === '/' ? 'overview' : path.slice(1)}`);
      expect(problems, path).toEqual([]);
      await page.close();
    }
    expect(wide).toEqual([]);
  }, 240_000);

  it('reaches every nav link by keyboard, in order, and follows one with Enter', async () => {
    const links = await navLinks();
    const { page, problems } = await dashboard.open('/');
    await page.getByRole('navigation').waitFor();
    const reached: string[] = [];
    for (let i = 0; i < links.length + 3 && reached.length < links.length; i += 1) {
      await page.keyboard.press('Tab');
      const href = await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { getAttribute(name: string): string | null } | null } }).document.activeElement?.getAttribute('href') ?? null);
      if (href !== null) reached.push(href);
    }
    expect(reached).toEqual(links.map((l) => l.path));
    // Focus is on the last link now: Enter follows it like a click.
    await page.keyboard.press('Enter');
    await page.waitForURL(`**${links.at(-1)!.path}`);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
