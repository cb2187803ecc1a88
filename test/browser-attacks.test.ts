// What a web page can make a default-mode gateway on 127.0.0.1 do, in real Chromium
// (docs/auth.md, "Default mode on a network"):
// - a page on another origin (attacker.test) tries a no-cors POST, a form POST, a JSON fetch
//   (which needs a preflight) and a plain read; none of them changes anything or reads anything;
// - a page that rebinds its own name (rebind.test) to the gateway: the attacker's server
//   serves the page, then relays every later connection to the gateway, as a rebound DNS
//   answer would. The page's same-origin requests reach svc with Host: rebind.test and are
//   refused, so the page reads no answer and mints no token;
// - what svc answered, as Chromium received it: a form POST and a no-cors fetch (text, form
//   and multipart bodies) from another origin, from a sandboxed iframe and a data: page
//   (Origin: null) and from a page that sends no Referer are refused; the same form posted
//   by a page of the gateway's own origin is served.
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect, createServer, type Server as TcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, type Gateway } from './helpers/gateway.js';
import { chromiumSkipReason, launchChromium } from './helpers/chromium.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { startGateway } from './helpers/gateway.js';

const skip = chromiumSkipReason();
let gateway: Gateway;
let browser: Browser;
let attacker: Server;
let attackerPort: number;
let rebinder: TcpServer;

const ATTACKS = `
<!doctype html><title>cute cats</title><body>
<iframe name="sink"></iframe>
<form id="f" target="sink" method="POST" enctype="text/plain"><input name='{"label":"form","scope":"admin","x":"' value='"}'></form>
<script>
window.attack = async (gw) => {
  const out = {};
  await fetch(gw + '/api/slots/chat/load', { method: 'POST', mode: 'no-cors' }).then(() => (out.noCorsLoad = 'sent'), (e) => (out.noCorsLoad = 'error ' + e));
  await fetch(gw + '/api/auth/tokens', { method: 'POST', mode: 'no-cors', body: JSON.stringify({ label: 'nocors', scope: 'admin' }) }).then(() => (out.noCorsToken = 'sent'), (e) => (out.noCorsToken = 'error ' + e));
  await fetch(gw + '/api/stacks/saber/apply', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => (out.jsonApply = r.status), (e) => (out.jsonApply = 'blocked'));
  await fetch(gw + '/api/status').then((r) => r.text()).then((t) => (out.read = t.slice(0, 20)), () => (out.read = 'blocked'));
  const form = document.getElementById('f');
  form.action = gw + '/api/auth/tokens';
  const loaded = new Promise((done) => document.querySelector('iframe').addEventListener('load', done, { once: true }));
  form.submit();
  await Promise.race([loaded, new Promise((done) => setTimeout(done, 3000))]);
  out.form = 'submitted';
  return out;
};
window.rebound = async () => {
  const out = {};
  const token = await fetch('/api/auth/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ label: 'rebound', scope: 'admin' }) });
  out.token = [token.status, (await token.json()).error?.code];
  const status = await fetch('/api/status');
  out.status = [status.status, (await status.json()).error?.code];
  return out;
};
</script>`;

/** A page that posts forms into a frame and no-cors fetches on request; `quiet` sends no Referer (and so, Origin: null). */
const poster = (quiet: boolean) => `<!doctype html><title>more cats</title>${quiet ? '<meta name="referrer" content="no-referrer">' : ''}<body>
<iframe name="sink"></iframe>
<script>
window.post = (action, enctype, target = 'sink') => {
  const form = Object.assign(document.createElement('form'), { method: 'POST', action, enctype, target });
  form.append(Object.assign(document.createElement('input'), { name: 'model', value: 'chat' }));
  document.body.append(form);
  form.submit();
};
window.noCors = (url, kind) => {
  const body = kind === 'multipart' ? new FormData() : kind === 'form' ? new URLSearchParams({ model: 'chat' }) : '{"model":"chat"}';
  if (kind === 'multipart') body.append('model', 'chat');
  return fetch(url, { method: 'POST', mode: 'no-cors', body }).then(() => 'sent', (e) => 'error ' + e);
};
// The framed form waits for a message: DevTools attaches to the frame (its own process) first.
window.frame = (action) => new Promise((loaded) => {
  const frame = Object.assign(document.createElement('iframe'), { sandbox: 'allow-scripts allow-forms', onload: loaded });
  frame.srcdoc = '<form method="POST" enctype="text/plain" action="' + action + '"><input name="model" value="chat"></form><script>onmessage = () => document.forms[0].submit()<' + '/script>';
  document.body.append(frame);
  window.submitFrame = () => frame.contentWindow.postMessage('go', '*');
});
</script>`;

/** The gateway's answer to the next POST to `path` a page sent, as Chromium received it: a form's in full, a no-cors fetch's (opaque to DevTools too) by its status alone. */
async function answered(page: Page, path: string, send: () => Promise<unknown>): Promise<{ status: number; code?: string; origin?: string }> {
  const response = page.waitForResponse((r) => r.request().method() === 'POST' && r.url() === `${gateway.url}${path}`);
  await send();
  const got = await response;
  const body = (await got.json().catch(() => undefined)) as { error?: { code?: string } } | undefined;
  if (body === undefined) return { status: got.status() };
  return { status: got.status(), code: body.error?.code, origin: got.request().headers().origin ?? 'none' };
}

type Poster = { post: (action: string, enctype: string, target?: string) => void; noCors: (url: string, kind: string) => Promise<string>; frame: (action: string) => Promise<void>; submitFrame: () => void };
const postForm = (page: Page, path: string, enctype: string, target = 'sink') =>
  answered(page, path, () => page.evaluate(([action, type, into]) => (globalThis as unknown as Poster).post(action!, type!, into), [`${gateway.url}${path}`, enctype, target]));
const postNoCors = (page: Page, path: string, kind: string) =>
  answered(page, path, () => page.evaluate(([url, k]) => (globalThis as unknown as Poster).noCors(url!, k!), [`${gateway.url}${path}`, kind]));

beforeAll(async () => {
  if (skip) return;
  const home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin' }]);
  gateway = await startGateway(home.home);
  attacker = createHttpServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(req.url === '/poster' ? poster(false) : req.url === '/quiet' ? poster(true) : ATTACKS));
  await new Promise<void>((done) => attacker.listen(0, '127.0.0.1', done));
  attackerPort = (attacker.address() as { port: number }).port;
  // The rebinding attacker, on the gateway's port of another loopback address: it serves its
  // page at /, and relays every other request to the gateway, byte for byte, as the browser's
  // connections would reach it once the name points there.
  rebinder = createServer((socket) => {
    socket.once('data', (first: Buffer) => {
      if (first.toString('latin1').startsWith('GET / ')) {
        socket.end(`HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${Buffer.byteLength(ATTACKS)}\r\nconnection: close\r\n\r\n${ATTACKS}`);
        return;
      }
      const upstream = connect(gateway.port, '127.0.0.1', () => upstream.write(first));
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
  });
  await new Promise<void>((done) => rebinder.listen(gateway.port, '127.0.0.2', done));
  browser = await launchChromium([`MAP attacker.test 127.0.0.1`, `MAP rebind.test 127.0.0.2`]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  attacker?.close();
  rebinder?.close();
  await gateway?.stop();
});

describe.skipIf(skip)(`a web page against a default-mode gateway, in Chromium ${skip ?? ''}`, () => {
  it('changes nothing and reads nothing from another origin', async () => {
    const page = await browser.newPage();
    await page.goto(`http://attacker.test:${attackerPort}/`);
    const out = await page.evaluate((gw) => (globalThis as unknown as { attack: (gw: string) => Promise<Record<string, unknown>> }).attack(gw), gateway.url);
    // The sends themselves succeed (no-cors answers are opaque); what matters is what svc did.
    expect(out).toMatchObject({ noCorsLoad: 'sent', noCorsToken: 'sent', jsonApply: 'blocked', read: 'blocked', form: 'submitted' });
    expect((await api(gateway.url, '/api/activity?action=slot.load')).text).not.toContain('"slot.load"');
    expect((await api(gateway.url, '/api/auth/tokens')).json.tokens).toEqual([]);
    expect((await api(gateway.url, '/api/stacks/active')).json.stack ?? null).toBeNull();
    await page.close();
  });

  it('mints no token and reads nothing through a rebound name', async () => {
    const page = await browser.newPage();
    await page.goto(`http://rebind.test:${gateway.port}/`);
    const out = await page.evaluate(() => (globalThis as unknown as { rebound: () => Promise<Record<string, unknown>> }).rebound());
    expect(out).toEqual({ token: [421, 'request.unknown_host'], status: [421, 'request.unknown_host'] });
    expect((await api(gateway.url, '/api/auth/tokens')).json.tokens).toEqual([]);
    await page.close();
  });

  it('refuses a form POST and a no-cors fetch from another origin, whatever the body', async () => {
    const page = await browser.newPage();
    await page.goto(`http://attacker.test:${attackerPort}/poster`);
    const origin = `http://attacker.test:${attackerPort}`;
    for (const enctype of ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']) {
      expect(await postForm(page, '/api/slots/chat/load', enctype), enctype).toEqual({ status: 403, code: 'request.cross_site', origin });
      expect(await postForm(page, '/v1/audio/transcriptions', enctype), enctype).toEqual({ status: 403, code: 'request.cross_site', origin });
    }
    // Served, these would be the routes' own 415 and 400.
    for (const kind of ['text', 'form', 'multipart']) {
      expect(await postNoCors(page, '/api/slots/chat/load', kind), kind).toEqual({ status: 403 });
      expect(await postNoCors(page, '/v1/audio/transcriptions', kind), kind).toEqual({ status: 403 });
    }
    expect((await api(gateway.url, '/api/activity?action=slot.load')).text).not.toContain('"slot.load"');
    await page.close();
  });

  it('refuses Origin: null: from a sandboxed iframe, a data: page and a page that sends no Referer', async () => {
    const page = await browser.newPage();
    const refused = { status: 403, code: 'request.cross_site', origin: 'null' };
    await page.goto(`http://attacker.test:${attackerPort}/poster`);
    const load = `${gateway.url}/api/slots/chat/load`;
    await page.evaluate((action) => (globalThis as unknown as Poster).frame(action), load);
    expect(await answered(page, '/api/slots/chat/load', () => page.evaluate(() => (globalThis as unknown as Poster).submitFrame()))).toEqual(refused);
    // A page without a Referer has its form's Origin sent as null (the Fetch standard), not left out.
    await page.goto(`http://attacker.test:${attackerPort}/quiet`);
    expect(await postForm(page, '/api/slots/chat/load', 'text/plain')).toEqual(refused);
    expect(await postForm(page, '/v1/audio/transcriptions', 'multipart/form-data')).toEqual(refused);
    expect(await postNoCors(page, '/v1/audio/transcriptions', 'multipart')).toEqual({ status: 403 });
    await page.goto(`data:text/html,${encodeURIComponent(poster(false))}`);
    // Its frames get no further: the form navigates the page itself.
    expect(await postForm(page, '/api/slots/chat/load', 'application/x-www-form-urlencoded', '_self')).toEqual(refused);
    expect((await api(gateway.url, '/api/activity?action=slot.load')).text).not.toContain('"slot.load"');
    await page.close();
  });

  it('serves the same form posted by a page of the gateway\'s own origin: the route answers it', async () => {
    const page = await browser.newPage();
    await page.goto(`${gateway.url}/api/status`);
    await page.setContent(poster(false));
    expect(await postForm(page, '/api/slots/nope/load', 'application/x-www-form-urlencoded')).toEqual({ status: 415, code: 'request.unsupported_media_type', origin: gateway.url });
    await page.close();
  });
});
