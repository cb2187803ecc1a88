// The dashboard's first load on localhost in real Chromium (Debian's, driven by
// playwright-core): navigation start to first contentful paint, and to interactive (the
// Overview showing the gateway's version, read from /api, with the event stream open), plus
// the bytes transferred; cold (a fresh browser context, empty cache) and warm (the same
// context again: hashed assets come from the cache, index.html is revalidated). Medians of
// several loads. Used by bench/run.mjs (the `dashboard` figures) and bench/dashboard.mjs.
/* global document, performance */
import { existsSync, rmSync } from 'node:fs';
import { median } from './load.mjs';
import { startGateway } from './processes.mjs';
import { tinyModelHome } from './tiny-home.mjs';

const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';

/** In the page: times from navigation start and bytes over the wire, once the Overview is interactive. */
const readTimings = () => {
  const nav = performance.getEntriesByType('navigation')[0];
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  const resources = performance.getEntriesByType('resource');
  // The event stream never ends, so its entry is absent; everything else finished.
  const bytes = (nav?.transferSize ?? 0) + resources.reduce((sum, r) => sum + (r.transferSize ?? 0), 0);
  const scripts = resources.filter((r) => r.initiatorType === 'script' || r.name.endsWith('.js'));
  return {
    fcp_ms: paint?.startTime ?? null,
    dom_content_loaded_ms: nav?.domContentLoadedEventEnd ?? null,
    bytes,
    script_bytes: scripts.reduce((sum, r) => sum + (r.transferSize ?? 0), 0),
    requests: resources.length + 1,
  };
};

async function loadOnce(context, url) {
  const page = await context.newPage();
  await page.goto(url);
  // Interactive: the version came from /api/status and the stream says live; the time is
  // taken in the page, on the first animation frame where both hold.
  const interactive = await page.waitForFunction(() => {
    const version = document.querySelector('[data-testid="version"]')?.textContent;
    const live = document.querySelector('[data-testid="stream-state"]')?.textContent === 'live';
    return version && live ? performance.now() : false;
  }, null, { polling: 'raf' });
  const interactiveMs = await interactive.jsonValue();
  const figures = { ...(await page.evaluate(readTimings)), interactive_ms: interactiveMs };
  await page.close();
  return figures;
}

export async function measureDashboard({ loads = 7 } = {}) {
  if (!existsSync(CHROMIUM)) return { bench: 'dashboard', skipped: `Chromium is not at ${CHROMIUM}: apt-get install chromium` };
  const { chromium } = await import('playwright-core');
  const root = await tinyModelHome('svc-bench-dashboard-');
  const gw = await startGateway({ home: root, wrapper: '/bin/false' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  const cold = [];
  const warm = [];
  try {
    const url = `${gw.url}/`;
    // One load unmeasured: the gateway's first read of the files, Chromium's first start.
    await loadOnce(await browser.newContext(), url);
    for (let i = 0; i < loads; i++) {
      const context = await browser.newContext();
      cold.push(await loadOnce(context, url));
      warm.push(await loadOnce(context, url));
      await context.close();
    }
  } finally {
    await browser.close();
    await gw.stop();
    rmSync(root, { recursive: true, force: true });
  }
  const summary = (runs) => Object.fromEntries(['fcp_ms', 'interactive_ms', 'dom_content_loaded_ms', 'bytes', 'script_bytes', 'requests'].map((k) => [k, Math.round(median(runs.map((r) => r[k])) * 10) / 10]));
  return { bench: 'dashboard', loads, cold: summary(cold), warm: summary(warm) };
}
