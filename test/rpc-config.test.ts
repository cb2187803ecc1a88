// The configuration side of llama.cpp RPC (docs/scaling.md): `svc config validate` names the
// field of an rpc-server that would listen on a public address, and a LAN client cannot add
// an RPC worker to a slot (a host the model would be sent to) while this host can. The LAN
// client is a network namespace of this test's own (test/helpers/lan.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runSvc, startGateway, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';
import { type Lan, lanSkipReason, openLan } from './helpers/lan.js';
import { homeWithTinySlots } from './helpers/llama.js';

const worker = (host: string, extra = '') => `[slot]\nname = "lend"\nport = 8150\ntype = "rpc-worker"\nprovider = "llama-rpc"\ndevice = "cpu"\n\n[rpc]\nhost = "${host}"\n${extra}`;

describe('svc config validate on llama-rpc slots', () => {
  it('refuses a public or wildcard bind at rpc.host unless allow_public, and a provider without its type', () => {
    const home = tempHome({ 'slots/lend.toml': worker('203.0.113.7') });
    const refused = runSvc(['config', 'validate', '--json'], { home: home.home });
    expect(refused.status, refused.stdout + refused.stderr).not.toBe(0);
    expect(refused.stdout).toContain('rpc.host');
    expect(refused.stdout).toContain('rpc.allow_public = true');
    home.write('slots/lend.toml', worker('0.0.0.0'));
    expect(runSvc(['config', 'validate', '--json'], { home: home.home }).stdout).toContain('wildcard 0.0.0.0');
    home.write('slots/lend.toml', worker('203.0.113.7', 'allow_public = true\n'));
    expect(runSvc(['config', 'validate'], { home: home.home }).status).toBe(0);
    home.write('slots/lend.toml', worker('192.168.7.2'));
    expect(runSvc(['config', 'validate'], { home: home.home }).status).toBe(0);
    home.write('slots/lend.toml', worker('192.168.7.2').replace('type = "rpc-worker"\n', ''));
    expect(runSvc(['config', 'validate', '--json'], { home: home.home }).stdout).toContain('slot.type');
  });
});

const skip = lanSkipReason();

describe.skipIf(skip)(`rpc_workers over HTTP ${skip ?? ''}`, () => {
  let home: TempHome;
  let gateway: Gateway;
  let lan: Lan;
  beforeAll(async () => {
    home = await homeWithTinySlots([{ name: 'chat' }]);
    [gateway, lan] = await Promise.all([startGateway(home.home, { args: ['--host', '0.0.0.0'] }), openLan()]);
  }, 60_000);
  afterAll(async () => {
    lan?.close();
    await gateway?.stop();
  });

  it('adding a worker is host-only; removing one is not', async () => {
    const body = { file: { slot: { rpc_workers: ['10.0.0.9:50052'] } } };
    const fromLan = await lan.request(`${lan.url(gateway.port)}/api/slots/chat`, { method: 'PUT', body });
    expect([fromLan.status, fromLan.json.error.code]).toEqual([403, 'config.host_only']);
    expect(fromLan.json.error.details.keys).toEqual(['slots.chat slot.rpc_workers 10.0.0.9:50052']);
    expect((await api(gateway.url, '/api/slots/chat', { method: 'PUT', body })).status).toBe(200);
    const cleared = await lan.request(`${lan.url(gateway.port)}/api/slots/chat`, { method: 'PUT', body: { file: { slot: { rpc_workers: [] } } } });
    expect(cleared.status, cleared.text).toBe(200);
  });
});
