// GET /api/doctor against a real gateway: the `svc doctor` battery run by the gateway on its
// own home. The port it listens on is its own (ok, not a conflict); a slot whose port another
// process holds fails with a fix hint; every check has an id, a status and a message.
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorPayload } from '../src/protocol/doctor-wire.js';
import { api, startGateway, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';

let home: TempHome;
let gw: Gateway;
let squatter: Server;
let squattedPort: number | undefined;

beforeAll(async () => {
  // A slot port must lie in the slot pool (8081-8200), so hold one there that is free now.
  squatter = createServer();
  for (let tries = 0; squattedPort === undefined; tries += 1) {
    const port = 8100 + Math.floor(Math.random() * 100);
    const bound = await new Promise<boolean>((done) => {
      squatter.once('error', () => done(false));
      squatter.listen(port, '127.0.0.1', () => done(true));
    });
    if (bound) squattedPort = port;
    else if (tries > 50) throw new Error('no free port in 8100-8199');
  }
  home = tempHome({ 'slots/chat.toml': `[slot]\nname = "chat"\nport = ${squattedPort!}\ndevice = "cpu"\nprovider = "builtin"\n` });
  gw = await startGateway(home.home);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  squatter?.close();
});

describe('GET /api/doctor', () => {
  it('runs every check: its own port is ok, a slot port held by another process fails with a hint', async () => {
    const { status, json } = await api(gw.url, '/api/doctor');
    expect(status).toBe(200);
    const payload = json as DoctorPayload;
    for (const check of payload.checks) {
      expect(check.id).toMatch(/\S/);
      expect(['ok', 'warn', 'fail']).toContain(check.status);
      expect(check.message).toMatch(/\S/);
      if (check.status !== 'ok') expect(check.hint, check.id).toMatch(/\S/);
    }
    const byId = new Map(payload.checks.map((c) => [c.id, c]));
    expect(byId.get('config')).toMatchObject({ status: 'ok' });
    expect(byId.get('gateway')).toMatchObject({ status: 'ok' });
    expect(byId.get(`port:${gw.port}`)).toMatchObject({ status: 'ok', message: expect.stringContaining('(the API) is held by') });
    expect(byId.get(`port:${squattedPort!}`)).toMatchObject({ status: 'fail', message: expect.stringContaining(`pid ${process.pid}`), hint: expect.stringContaining('slot chat') });
    expect(payload.failed).toBe(payload.checks.filter((c) => c.status === 'fail').length);
    expect(payload.warnings).toBe(payload.checks.filter((c) => c.status === 'warn').length);
    expect(payload.ok).toBe(false);
  }, 90_000);
});
