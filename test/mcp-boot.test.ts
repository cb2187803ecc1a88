// The gateway runs tool servers: an enabled record is started after listen (its state changes
// are events on /api/events), and a graceful shutdown stops its process.
import { afterEach, describe, expect, it } from 'vitest';
import { api, useTempGateways } from './helpers/gateway.js';
import { FIXTURE_SERVER } from './helpers/mcp.js';
import { waitFor } from './helpers/wait.js';

const { home, gateway } = useTempGateways(afterEach);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('tool servers in the gateway', () => {
  it('starts an enabled server at boot and stops it at shutdown', async () => {
    const h = home();
    h.write('mcp-servers/fix.toml', `transport = "stdio"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FIXTURE_SERVER)}]\n`);
    h.write('mcp-servers/off.toml', `transport = "stdio"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FIXTURE_SERVER)}]\nenabled = false\n`);
    const g = await gateway(h);
    const ready = await waitFor(
      async () => ((await api(g.url, '/api/events?type=mcp.state')).json.events as Array<{ data: { server: string; to: string; pid: number | null } }>).find((e) => e.data.server === 'fix' && e.data.to === 'ready'),
      { what: 'fix to be ready', timeout: 30_000 },
    );
    const pid = ready.data.pid!;
    expect(alive(pid)).toBe(true);
    const events = (await api(g.url, '/api/events?type=mcp.state')).json.events as Array<{ data: { server: string } }>;
    expect(events.some((e) => e.data.server === 'off')).toBe(false);
    expect(await g.stop()).toBe(0);
    await waitFor(() => !alive(pid), { what: 'the tool server process to be gone after shutdown' });
  });
});
