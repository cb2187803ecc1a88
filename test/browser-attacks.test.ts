// What a web page can make a default-mode gateway on 127.0.0.1 do, in real Chromium
// (docs/auth.md, "Default mode on a network"):
// - a page on another origin (attacker.test) tries a no-cors POST, a form POST, a JSON fetch
//   (which needs a preflight) and a plain read; none of them changes anything or reads anything;
// - a page that rebinds its own name (rebind.test) to the gateway: the attacker's server
//   serves the page, then relays every later connection to the gateway, as a rebound DNS
//   answer would. The page's same-origin requests reach svc with Host: rebind.test and are
//   refused, so the page reads no answer and mints no token.
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect, createServer, type Server as TcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
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

beforeAll(async () => {
  if (skip) return;
  const home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin' }]);
  gateway = await startGateway(home.home);
  attacker = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(ATTACKS));
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
});
