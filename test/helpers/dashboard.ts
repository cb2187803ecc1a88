// The dashboard in real Chromium against a real gateway, for every dashboard test: a gateway
// serving dist/web with the tiny model, pages that record every console error, uncaught
// exception and failed request, axe-core's serious and critical violations, and screenshots
// written under test-results/dashboard/ (not committed) to look at.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { api, REPO_ROOT, startGateway, type Gateway, type TempHome } from './gateway.js';
import { launchChromium } from './chromium.js';
import { homeWithTinySlots, type TinySlot } from './llama.js';
import { waitFor } from './wait.js';

export { chromiumSkipReason } from './chromium.js';
export const SCREENSHOTS = join(REPO_ROOT, 'test-results', 'dashboard');

export interface Dashboard {
  home: TempHome;
  gateway: Gateway;
  browser: Browser;
  /** Open `path` in a new page; `problems` collects what went wrong in it from then on. */
  open(path: string, options?: { width?: number; height?: number }): Promise<OpenPage>;
  close(): Promise<void>;
}

export interface OpenPage {
  page: Page;
  problems: string[];
  /**
   * Resolves once no request but a long-lived stream (the event stream, an SSE follow) has
   * been in flight for 300 ms: the page's reads have settled. (Playwright's networkidle
   * never comes while the event stream is open.)
   */
  settled(): Promise<void>;
}

/** Requests that stay open by design and never count as unsettled. */
const LONG_LIVED = /\/api\/events\/stream|\/stream(\?|$)|\/logs\?.*follow/;

/** A gateway (tiny slots, default one built-in "chat") serving the built dashboard, and Chromium. */
export async function startDashboard(options: { slots?: readonly TinySlot[]; env?: Record<string, string>; files?: Record<string, string> } = {}): Promise<Dashboard> {
  if (!existsSync(join(REPO_ROOT, 'dist/web/index.html'))) throw new Error('no dashboard build in dist/web: run npm run build first');
  const home = await homeWithTinySlots(options.slots ?? [{ name: 'chat', provider: 'builtin' }]);
  for (const [path, text] of Object.entries(options.files ?? {})) home.write(path, text);
  const gateway = await startGateway(home.home, options.env ? { env: options.env } : {});
  const browser = await launchChromium();
  return {
    home,
    gateway,
    browser,
    open: (path, size) => openPage(browser, `${gateway.url}${path}`, size),
    async close() {
      await browser.close();
      await gateway.stop();
      rmSync(home.home, { recursive: true, force: true });
    },
  };
}

export async function openPage(browser: Browser, url: string, size: { width?: number; height?: number } = {}): Promise<OpenPage> {
  const page = await browser.newPage({ viewport: { width: size.width ?? 1280, height: size.height ?? 900 } });
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) => {
    // A read the page cancels itself (a newer event made it stale, a page left) is its choice.
    const why = request.failure()?.errorText ?? '';
    if (why !== 'net::ERR_ABORTED') problems.push(`request failed: ${request.url()} ${why}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  const pending = new Set<unknown>();
  let lastChange = Date.now();
  const track = (request: { url(): string }, add: boolean) => {
    if (LONG_LIVED.test(request.url())) return;
    if (add) pending.add(request);
    else pending.delete(request);
    lastChange = Date.now();
  };
  page.on('request', (request) => track(request, true));
  page.on('requestfinished', (request) => track(request, false));
  page.on('requestfailed', (request) => track(request, false));
  await page.goto(url);
  const settled = async () => {
    const deadline = Date.now() + 20_000;
    while (pending.size > 0 || Date.now() - lastChange < 300) {
      if (Date.now() > deadline) throw new Error(`the page kept requesting: ${[...pending].map((r) => (r as { url(): string }).url()).join(', ')}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  };
  return { page, problems, settled };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on the page as it is now, one line each
 * (rule, impact, the first offending nodes). Injected through the DevTools protocol, which
 * the page's Content-Security-Policy does not apply to.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.targets.join(', ')}`);
}

/** A full-page screenshot, test-results/dashboard/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

export interface ScopedDashboard extends Dashboard {
  /** A token of each scope asked for, made by the proxy admin. */
  tokens: Record<string, string>;
  /** `path` in a new browser context whose every request carries the scope's token; `refused` collects answers of 400 or more, console errors and uncaught errors. */
  openAs(scope: string, path: string): Promise<{ page: Page; refused: string[]; answered(): Promise<void>; close(): Promise<void> }>;
}

/**
 * Resolves once every request the page made before the call has its answer (long-lived
 * streams aside): the page fetches a marker itself, and since the browser reports its
 * requests in order, once the marker is seen every earlier one has been; then each of those
 * is waited for. What a page asks while it renders is then known, not guessed by a pause.
 */
function answeredTracker(page: Page): () => Promise<void> {
  const pending = new Set<unknown>();
  const seen: string[] = [];
  page.on('request', (request) => {
    seen.push(request.url());
    if (!LONG_LIVED.test(request.url())) pending.add(request);
  });
  page.on('requestfinished', (request) => pending.delete(request));
  page.on('requestfailed', (request) => pending.delete(request));
  let markers = 0;
  return async () => {
    const marker = `/?answered=${++markers}`;
    await page.evaluate(async (url) => void (await fetch(url)).status, marker);
    await waitFor(() => seen.some((url) => url.endsWith(marker)), { what: `the page's marker request ${marker}` });
    await waitFor(() => pending.size === 0, { what: 'the answers to every request the page made', timeout: 20_000 });
  };
}

/** startDashboard in auth mode (one built-in "chat" slot that never idles out), with a token per scope. */
export async function startScopedDashboard(scopes: readonly string[]): Promise<ScopedDashboard> {
  const secret = 'dashboard-proxy-secret-0123456789abcdef';
  const proxy = { 'x-forwarded-email': 'admin@example.test', 'x-svc-proxy-secret': secret };
  const dashboard = await startDashboard({ slots: [{ name: 'chat', provider: 'builtin', extra: 'idle_timeout_s = 0' }], env: { SVC_AUTH_ENABLED: '1' }, files: { 'proxy-secret': `${secret}\n` } });
  const tokens: Record<string, string> = {};
  try {
    for (const scope of scopes) {
      const created = await api(dashboard.gateway.url, '/api/auth/tokens', { method: 'POST', headers: proxy, body: { label: `dashboard-${scope}`, scope } });
      if (created.status !== 201) throw new Error(`making a ${scope} token answered ${created.status}: ${JSON.stringify(created.json)}`);
      tokens[scope] = created.json.token as string;
    }
  } catch (error) {
    await dashboard.close();
    throw error;
  }
  return {
    ...dashboard,
    tokens,
    async openAs(scope, path) {
      const context = await dashboard.browser.newContext({ extraHTTPHeaders: { authorization: `Bearer ${tokens[scope]}` } });
      const page = await context.newPage();
      const refused: string[] = [];
      page.on('response', (response) => void (response.status() >= 400 && refused.push(`${response.status()} ${response.url()}`)));
      page.on('console', (message) => void (message.type() === 'error' && refused.push(`console: ${message.text()}`)));
      page.on('pageerror', (error) => refused.push(`uncaught: ${error.message}`));
      const answered = answeredTracker(page);
      await page.goto(`${dashboard.gateway.url}${path}`);
      return { page, refused, answered, close: () => context.close() };
    },
  };
}
