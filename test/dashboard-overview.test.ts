// The dashboard's Overview in real Chromium against a real gateway: it loads with no console
// error (a CSP violation, a failed request and an uncaught exception all count), shows every
// slot as a card, and a card turns ready, live from the event stream, when its slot loads;
// a failed pull is one line of its latest warnings and errors, not two.
// Where the gateway does not serve the dashboard itself, a tiny server here serves dist/web
// (with the gateway's Content-Security-Policy) and relays /api and /v1 to the gateway.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { api, REPO_ROOT, startGateway, type Gateway } from './helpers/gateway.js';
import { chromiumSkipReason, launchChromium } from './helpers/chromium.js';
import { openPage } from './helpers/dashboard.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';
import { CONTENT_SECURITY_POLICY } from '../src/server/dashboard-files.js';

const skip = chromiumSkipReason();
const WEB = join(REPO_ROOT, 'dist/web');
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };
let home: string;
let gateway: Gateway;
let browser: Browser;
let relay: Server;
let relayUrl: string;
let base: string;
/** Where the relay sends /api and /v1 now, and the Last-Event-ID of each event-stream request it relayed. */
let target: Gateway;
const resumedFrom: Array<string | undefined> = [];

/** dist/web, serving index.html for any path without a file (the app's path routes), and relaying the API. */
function relayServer(): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path.startsWith('/api/') || path.startsWith('/v1/')) {
      if (path === '/api/events/stream') resumedFrom.push(req.headers['last-event-id'] as string | undefined);
      const upstream = httpRequest({ host: '127.0.0.1', port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: `127.0.0.1:${target.port}` } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      // What a reverse proxy answers for a gateway that is down: an envelope the page must show.
      upstream.on('error', () => {
        if (res.headersSent) res.destroy();
        else res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'relay.upstream_down', message: 'the gateway is not answering', details: {} } }));
      });
      req.pipe(upstream);
      return;
    }
    const file = normalize(join(WEB, path));
    const found = file.startsWith(WEB) && extname(file) !== '' && existsSync(file) ? file : join(WEB, 'index.html');
    res.writeHead(200, { 'content-type': TYPES[extname(found)] ?? 'application/octet-stream', 'content-security-policy': CONTENT_SECURITY_POLICY });
    res.end(readFileSync(found));
  });
}

beforeAll(async () => {
  if (skip) return;
  if (!existsSync(join(WEB, 'index.html'))) throw new Error(`no dashboard build in ${WEB}: run npm run build first`);
  const made = await homeWithTinySlots([{ name: 'chat', provider: 'builtin' }]);
  home = made.home;
  // Hugging Face at a port nothing listens on: a pull fails at once (the Overview lists it once).
  gateway = await startGateway(home, { env: { SVC_HF_ENDPOINT: `http://127.0.0.1:${await closedPort()}` } });
  target = gateway;
  relay = relayServer();
  await new Promise<void>((done) => relay.listen(0, '127.0.0.1', done));
  relayUrl = `http://127.0.0.1:${(relay.address() as { port: number }).port}`;
  const index = await fetch(`${gateway.url}/`).then((r) => r.text()).catch(() => '');
  base = index.includes('<div id="root">') ? gateway.url : relayUrl;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  relay?.closeAllConnections();
  relay?.close();
  await gateway?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** A page that records every console error, uncaught exception and failed request (test/helpers/dashboard.ts). */
const openPageAt = (path: string) => openPage(browser, `${base}${path}`);

describe.skipIf(skip)('dashboard Overview in Chromium', () => {
  it('loads with no console error and turns a slot card ready when the slot is loaded', async () => {
    const { page, problems } = await openPageAt('/');
    expect(await page.title()).toBe('svc · Overview');
    // No probe yet in this home: the hint names the command that makes one, as the CLI spells it.
    await page.getByText('not probed yet (svc probe)', { exact: true }).waitFor();
    const card = page.getByTestId('slot-chat');
    await card.waitFor();
    await page.getByTestId('stream-state').filter({ hasText: 'live' }).waitFor();
    // The gateway starts its slots at boot: once this one is up, unload it and see the card follow.
    await page.locator('[data-testid="slot-chat"][data-state="ready"]').waitFor({ timeout: 60_000 });
    expect((await api(gateway.url, '/api/slots/chat/unload', { method: 'POST' })).status).toBe(200);
    await page.locator('[data-testid="slot-chat"][data-state="stopped"]').waitFor({ timeout: 30_000 });
    const version = await api(gateway.url, '/api/status');
    await expect.poll(() => page.getByTestId('version').textContent()).toBe(version.json.version);

    // Every state the card shows from here on, as the DOM changes: the page is not reloaded.
    // (The root tsconfig has no DOM types: the page's globals are declared where used.)
    await card.evaluate((element) => {
      const page = globalThis as unknown as { seen: string[]; MutationObserver: new (fn: () => void) => { observe(target: unknown, options: object): void } };
      page.seen = [];
      new page.MutationObserver(() => page.seen.push(element.getAttribute('data-state') ?? '')).observe(element, { attributes: true, attributeFilter: ['data-state'] });
    });
    const loaded = await api(gateway.url, '/api/slots/chat/load', { method: 'POST' });
    expect(loaded.status).toBe(200);
    await page.locator('[data-testid="slot-chat"][data-state="ready"]').waitFor({ timeout: 60_000 });
    const seen = await page.evaluate(() => (globalThis as unknown as { seen: string[] }).seen);
    expect(seen.at(-1)).toBe('ready');
    expect(seen.every((state) => ['starting', 'warming', 'ready'].includes(state))).toBe(true);
    expect(await card.getByTestId('slot-state').textContent()).toBe('ready');
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('lists a failed pull once among the latest warnings and errors, not again as its activity row', async () => {
    const started = await api(gateway.url, '/api/models/unreachable-model/pull', { method: 'POST', body: { ref: 'org/unreachable-GGUF' } });
    expect(started.status, started.text).toBe(202);
    const failed = await waitFor(async () => (await api(gateway.url, '/api/events?type=pull.failed')).json.events as Array<{ message: string }>, { what: 'the pull to fail', until: (events) => events.length > 0, timeout: 30_000 });
    // Both are there to be listed: the pull's own event and the activity row of its failure.
    const warned = (await api(gateway.url, '/api/events?severity=warn&limit=200')).json.events as Array<{ type: string; message: string }>;
    expect(warned.filter((e) => e.message.includes('unreachable-model')).map((e) => e.type).sort()).toEqual(['activity', 'pull.failed']);
    const { page, problems } = await openPageAt('/');
    const listed = page.getByTestId('problems').getByRole('listitem').filter({ hasText: 'unreachable-model' });
    await listed.first().waitFor();
    expect(await listed.allTextContents()).toEqual([expect.stringContaining(failed[0]!.message)]);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('serves a deep link to an unknown path as the app, with its nav and a not-found page', async () => {
    const { page, problems } = await openPageAt('/no-such-page');
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await page.getByRole('link', { name: 'Overview', exact: true }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('says the stream is down while the gateway is, resumes with Last-Event-ID, and picks up a restarted gateway without a reload', async () => {
    resumedFrom.splice(0);
    const page = await browser.newPage();
    const uncaught: string[] = [];
    page.on('pageerror', (error) => uncaught.push(error.message));
    await page.goto(`${relayUrl}/`);
    await page.getByTestId('stream-state').filter({ hasText: 'live' }).waitFor();
    await page.locator('[data-testid="slot-chat"][data-state="ready"]').waitFor({ timeout: 60_000 });
    const before = await page.getByTestId('gateway').getAttribute('data-started-at');
    // Some events for the page to have seen, so that it has an id to resume after.
    expect((await api(gateway.url, '/api/slots/chat/unload', { method: 'POST' })).status).toBe(200);
    await page.locator('[data-testid="slot-chat"][data-state="stopped"]').waitFor({ timeout: 30_000 });
    const newest = (await api(gateway.url, '/api/events?limit=1')).json.events[0].id as number;

    await gateway.stop();
    const banner = page.getByTestId('stream-down');
    // The relay's 502 envelope, shown with its code and message.
    await banner.filter({ hasText: 'relay.upstream_down' }).waitFor();
    expect(await banner.textContent()).toContain('the gateway is not answering');
    expect(await page.getByTestId('stream-state').textContent()).toBe('down');

    gateway = await startGateway(home);
    target = gateway;
    const status = await api(gateway.url, '/api/status');
    expect(status.json.started_at).not.toBe(before);
    await page.getByTestId('stream-state').filter({ hasText: 'live' }).waitFor({ timeout: 30_000 });
    expect(await banner.count()).toBe(0);
    // The page fetched everything again for the new boot: its start time, and the slot it starts.
    await page.locator(`[data-testid="gateway"][data-started-at="${status.json.started_at}"]`).waitFor();
    await page.locator('[data-testid="slot-chat"][data-state="ready"]').waitFor({ timeout: 60_000 });
    expect(resumedFrom[0]).toBeUndefined();
    expect(resumedFrom.length).toBeGreaterThan(1);
    for (const id of resumedFrom.slice(1)) expect(Number(id)).toBeGreaterThanOrEqual(newest);
    expect(uncaught).toEqual([]);
    await page.close();
  }, 120_000);
});
