// Auth mode with the real Caddy in front, from the Caddyfile `svc auth enable` rendered:
// TLS from Caddy's internal CA, basic auth for browsers, bearer tokens for /v1, forged
// identity headers stripped, the chat front end signed in, revocation at once, and TLS state
// that survives disable and enable.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootCertificatePath } from '../src/auth/proxy/deploy.js';
import { proxyRun } from '../src/auth/proxy/systemd-units.js';
import { findProgram } from '../src/deploy/systemd.js';
import { resolvePaths } from '../src/config/paths.js';
import { type Gateway, runSvc, runSvcAsync, startGateway, svcEnv, tempHome, type TempHome } from './helpers/gateway.js';
import { freePort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';
import { chromiumSkipReason, launchChromium } from './helpers/chromium.js';

const caddy = findProgram('caddy');
if (!caddy && process.env.CI === 'true') throw new Error('caddy is not installed; CI must install it (.ci/run)');

const PASSWORD = 'correct-horse-battery-staple';
const basic = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };

let home: TempHome;
let gateway: Gateway;
let proxy: ChildProcess | undefined;
let chat: Server;
const chatSaw: IncomingHttpHeaders[] = [];
let https: string;
let agent: Agent;
let ports: { http: number; https: number; chat: number };

const paths = () => resolvePaths({ env: { SVC_HOME: home.home }, isRoot: false, homeDir: home.home, exists: () => false });

function enable() {
  const result = runSvc(['auth', 'enable', '--no-start', '--hostname', 'localhost', '--api', `127.0.0.1:${gateway.port}`, '--chat', `127.0.0.1:${ports.chat}`, '--http-port', String(ports.http), '--https-port', String(ports.https)], {
    home: home.home, env: { SVC_PORT: String(gateway.port), SVC_ADMIN_PASSWORD: PASSWORD },
  });
  expect(result.status, result.stderr).toBe(0);
  return result;
}

async function startProxy(): Promise<void> {
  const run = proxyRun(paths(), caddy!);
  proxy = spawn(run.argv[0]!, run.argv.slice(1), { env: { ...svcEnv(home.home), ...run.env }, stdio: 'ignore' });
  await waitFor(() => existsSync(rootCertificatePath(paths())), { what: 'caddy to write its root certificate' });
  agent = new Agent({ connect: { ca: readFileSync(rootCertificatePath(paths())) } });
  await waitFor(async () => (await get('/api/health/system')).status, { what: 'the gateway to answer through caddy', until: (status) => status === 200 });
}

async function stopProxy(): Promise<void> {
  if (!proxy || proxy.exitCode !== null) return;
  const exited = new Promise((done) => proxy!.once('exit', done));
  proxy.kill('SIGTERM');
  await exited;
}

async function get(path: string, headers: Record<string, string> = {}, method = 'GET', body?: unknown) {
  const response = await undiciFetch(`${https}${path}`, {
    method, dispatcher: agent, redirect: 'manual',
    headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

beforeAll(async () => {
  if (!caddy) return;
  ports = { http: await freePort(), https: await freePort(), chat: await freePort() };
  https = `https://localhost:${ports.https}`;
  chat = createServer((req, res) => {
    chatSaw.push(req.headers);
    res.end(`chat front end at ${req.url}`);
  }).listen(ports.chat, '127.0.0.1');
  home = tempHome();
  gateway = await startGateway(home.home);
  enable();
  await startProxy();
}, 60_000);

afterAll(async () => {
  await stopProxy();
  await gateway?.stop();
  chat?.close();
  await agent?.close();
});

describe.skipIf(!caddy)('auth mode behind the real Caddy', () => {
  it('challenges a browser path with basic auth, and lets the admin through as admin', async () => {
    const anonymous = await get('/api/slots');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect((await get('/api/slots', { authorization: `Basic ${Buffer.from('admin:wrong').toString('base64')}` })).status).toBe(401);
    const admin = await get('/api/slots', basic);
    expect(admin.status).toBe(200);
    expect(admin.json).toEqual({ slots: [] });
    // A token-admin route: only an admin identity reaches it.
    expect((await get('/api/auth/tokens', basic)).status).toBe(200);
  });

  it('serves the dashboard behind basic auth, and tells it who the user is', async () => {
    expect((await get('/')).status).toBe(401);
    const index = await get('/slots', basic);
    expect(index.status).toBe(200);
    expect(index.text).toContain('<div id="root">');
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(index.text)![1]!;
    expect((await get(asset)).status).toBe(401);
    const script = await get(asset, basic);
    expect([script.status, script.headers.get('cache-control')]).toEqual([200, 'public, max-age=31536000, immutable']);
    const who = await get('/api/auth/whoami', basic);
    expect(who.json).toMatchObject({ auth_enabled: true, identity: { kind: 'proxy', label: 'admin', scope: 'admin' }, host_authority: true });
    expect(who.json.grants).toContain('token-admin');
  });

  it.skipIf(chromiumSkipReason())('runs the dashboard in Chromium through Caddy, signed in by basic auth, with no console error', async () => {
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ ignoreHTTPSErrors: true, httpCredentials: { username: 'admin', password: PASSWORD } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => void (message.type() === 'error' && problems.push(message.text())));
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${https}/`);
      // The Overview live: the version read from /api/status, the event stream open through Caddy.
      await page.getByTestId('version').filter({ hasText: /\d/ }).waitFor();
      await page.getByTestId('stream-state').filter({ hasText: 'live' }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('strips the identity and the secret a client sends itself', async () => {
    const secret = readFileSync(paths().proxySecret, 'utf8').trim();
    const forged = { 'x-forwarded-email': 'admin', 'x-svc-proxy-secret': secret };
    const onV1 = await get('/v1/models/x', forged);
    expect([onV1.status, onV1.json?.error?.code]).toEqual([401, 'auth.required']);
    const onPublic = await get('/api/auth/status', forged);
    expect(onPublic.json.identity).toEqual({ kind: 'anonymous' });
  });

  it('passes /v1 through without basic auth, to svc\'s bearer check', async () => {
    const answer = await get('/v1/chat/completions', {}, 'POST', { model: 'x', messages: [] });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(answer.json.error.code).toBe('auth.required');
    expect((await get('/v1/models')).json.object).toBe('list');
  });

  it('signs the chat front end in with the forwarded identity, without the API\'s secret', async () => {
    chatSaw.length = 0;
    expect((await get('/chat/')).status).toBe(401);
    const answer = await get('/chat/', basic);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('chat front end at /');
    expect(chatSaw.at(-1)?.['x-forwarded-email']).toBe('admin');
    expect(chatSaw.at(-1)?.['x-svc-proxy-secret']).toBeUndefined();
  });

  it('makes a token through the proxy that works, and is refused the moment it is revoked', async () => {
    // A browser user cannot name another actor: Caddy strips the inbound X-Svc-Actor.
    const created = await get('/api/auth/tokens', { ...basic, 'x-svc-actor': 'user:mallory' }, 'POST', { label: 'through-caddy', scope: 'v1-only' });
    expect(created.status).toBe(201);
    const bearer = { authorization: `Bearer ${created.json.token}` };
    expect((await get('/v1/models/x', bearer)).json.error.code).toBe('model.not_found');
    expect((await get('/api/slots', bearer)).status).toBe(401); // Caddy's basic auth: a token is not a browser login
    expect((await get(`/api/auth/tokens/${created.json.id}`, basic, 'DELETE')).status).toBe(200);
    const after = await get('/v1/models/x', bearer);
    expect([after.status, after.json.error.code]).toEqual([401, 'auth.invalid']);
    const activity = await get('/api/activity?action=auth.token_created', basic);
    expect(activity.json.items[0].actor).toBe('user:admin');
  });

  it('keeps the TLS state across disable and enable, and works again', async () => {
    const root = readFileSync(rootCertificatePath(paths()));
    const disabled = runSvc(['auth', 'disable'], { home: home.home, env: { SVC_PORT: String(gateway.port) } });
    expect(disabled.status, disabled.stderr).toBe(0);
    await stopProxy();
    expect(readFileSync(join(home.configRoot, 'api.env'), 'utf8')).toContain('SVC_AUTH_ENABLED=0');
    expect(readFileSync(join(home.configRoot, 'api.env'), 'utf8')).not.toContain('SVC_HOST=');
    expect((await fetch(`${gateway.url}/api/slots`)).status).toBe(200);
    expect(existsSync(paths().caddyfile)).toBe(true);
    enable();
    expect((await fetch(`${gateway.url}/api/slots`)).status).toBe(401);
    await startProxy();
    expect(readFileSync(rootCertificatePath(paths()))).toEqual(root);
    expect((await get('/api/slots', basic)).status).toBe(200);
  });

  it('writes the admin password into no file under the home, and keeps secrets 0600', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.isFile()) files.push(path);
      }
    };
    walk(home.home);
    expect(files.length).toBeGreaterThan(5);
    expect(files.filter((file) => readFileSync(file).includes(PASSWORD))).toEqual([]);
    for (const file of [paths().caddyfile, paths().proxySecret]) expect(statSync(file).mode & 0o777, file).toBe(0o600);
  });
  it('svc doctor checks the proxy: the Caddyfile validates and Caddy listens on its https port', async () => {
    const doctor = await runSvcAsync(['doctor', '--json'], { home: home.home, env: { SVC_PORT: String(gateway.port) } });
    const proxyCheck = JSON.parse(doctor.stdout).checks.find((c: { id: string }) => c.id === 'proxy');
    expect(proxyCheck).toEqual({ id: 'proxy', status: 'ok', message: `${paths().caddyfile} is valid and the proxy listens on ${ports.https}` });
  }, 60_000);
});
