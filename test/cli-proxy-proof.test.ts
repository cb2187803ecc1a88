// The CLI sends the proxy secret only to a listener that proves it holds it (issue 22). While
// the gateway is down any local process may listen on its port: here a plain node:http
// server the test starts, which records everything it is sent and answers the proof route
// the ways an impostor can (a made-up proof, a 404). It never receives the secret. The real
// gateway proves itself, and the CLI's token commands keep working against it.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runSvcAsync, useTempGateways } from './helpers/gateway.js';

const SECRET = 'proof-test-proxy-secret-0123456789';
const { home: newHome, gateway: newGateway } = useTempGateways(afterEach);
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** An impostor on a loopback port: answers the proof route with `proof`, everything else with an empty list. */
async function impostor(proof: (url: string) => { status: number; body: unknown }): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ url: req.url!, headers: req.headers, body });
      const answer = req.url!.startsWith('/api/auth/proof') ? proof(req.url!) : { status: 200, body: { tokens: [] } };
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const carries = (seen: Seen[], text: string) => seen.some((s) => JSON.stringify(s).includes(text));

describe('the CLI and the proxy secret', () => {
  it('never sends the secret to a listener that cannot prove it holds it', async () => {
    const home = newHome({ 'proxy-secret': SECRET });
    const answers = [() => ({ status: 200, body: { proof: 'f'.repeat(64) } }), () => ({ status: 404, body: { error: { code: 'request.unknown_route' } } })];
    for (const answer of answers) {
      const fake = await impostor(answer);
      const run = await runSvcAsync(['token', 'list'], { home: home.home, env: { SVC_API_URL: fake.url } });
      expect(fake.seen.map((s) => s.url.split('?')[0])).toEqual(['/api/auth/proof', '/api/auth/tokens']);
      expect(carries(fake.seen, SECRET)).toBe(false);
      expect(fake.seen[1]!.headers['x-svc-proxy-secret']).toBeUndefined();
      expect(run.stderr).toContain('did not prove it is this home\'s gateway');
    }
  }, 30_000);

  it('sends it to the real gateway, which proves itself', async () => {
    const home = newHome({ 'proxy-secret': SECRET });
    const gateway = await newGateway(home, { env: { SVC_AUTH_ENABLED: '1' } });
    const env = { SVC_API_URL: gateway.url };
    const created = await runSvcAsync(['token', 'create', '--label', 'ci', '--scope', 'all'], { home: home.home, env });
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/svc_[0-9a-f]{8}\./);
    const listed = await runSvcAsync(['token', 'list'], { home: home.home, env });
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('ci');
    expect(listed.stderr).not.toContain('did not prove');
  }, 30_000);
});
