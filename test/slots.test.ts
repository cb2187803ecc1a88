// Issue 3's "done when", end to end: the real gateway supervising a real llama-server on
// the tiny model. Crashes, the crash-loop cap, idle eviction and gateway restarts.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, runSvc, startGateway, type Gateway } from './helpers/gateway.js';
import { homeWithTinySlots, llamaServerPath, llamaServerSkipReason, processAlive } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

const LLAMA_SERVER = llamaServerPath();
if (!LLAMA_SERVER) console.warn(llamaServerSkipReason());

const gateways: Gateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.stop()));
});

/** A home with the tiny model registered and one cpu llama-server slot "chat" using it. */
const homeWithChatSlot = (extra = '') => homeWithTinySlots([{ name: 'chat', extra }]);

async function start(home: string, binary = LLAMA_SERVER!): Promise<Gateway> {
  const gw = await startGateway(home, { env: { SVC_LLAMA_SERVER: binary } });
  gateways.push(gw);
  return gw;
}

const slot = async (gw: Gateway) => (await api(gw.url, '/api/slots/chat')).json;

describe.skipIf(!LLAMA_SERVER)('slots on a real llama-server', () => {
  it('a slot reaches ready and `svc slot list` shows its pid and port', async () => {
    const home = await homeWithChatSlot();
    const gw = await start(home.home);
    const env = { SVC_API_URL: gw.url };
    const load = runSvc(['slot', 'load', 'chat'], { home: home.home, env });
    expect(load.status, load.stderr).toBe(0);
    const list = runSvc(['slot', 'list', '--json'], { home: home.home, env });
    const chat = (JSON.parse(list.stdout) as { slots?: unknown[] } | unknown[]);
    const rows = (Array.isArray(chat) ? chat : chat.slots) as Array<{ name: string; state: string; pid: number; port: number }>;
    const row = rows.find((s) => s.name === 'chat')!;
    expect(row.state).toBe('ready');
    expect(processAlive(row.pid)).toBe(true);
    const health = await fetch(`http://127.0.0.1:${row.port}/health`);
    expect(health.status).toBe(200);
    const text = runSvc(['slot', 'list'], { home: home.home, env }).stdout;
    expect(text).toMatch(new RegExp(`^chat\\s.*\\b${row.port}\\b.*\\bready\\b.*\\b${row.pid}\\b`, 'm'));
  }, 120_000);

  it('kill -9 of the engine: error with the signal and stderr tail, then an automatic restart', async () => {
    const home = await homeWithChatSlot();
    const gw = await start(home.home);
    await api(gw.url, '/api/slots/chat/load', { method: 'POST', body: {} });
    const { pid } = await slot(gw);
    process.kill(pid, 'SIGKILL');
    const back = await waitFor(() => slot(gw), { what: 'restart after the crash', until: (s) => s.state === 'ready' && s.pid !== pid, timeout: 30_000 });
    expect(processAlive(back.pid)).toBe(true);
    const rows = (await api(gw.url, '/api/activity?action=slot.state&target=chat&limit=50')).json.items as Array<{ details: Record<string, unknown> }>;
    const crash = rows.find((r) => r.details.to === 'error');
    expect(crash?.details).toMatchObject({ signal: 'SIGKILL', code: 'slot.load_failed' });
    expect(String(crash?.details.stderr_tail)).toMatch(/\S/);
  }, 120_000);

  it('a binary that always crashes stops at the crash-loop cap, in error', async () => {
    const home = await homeWithChatSlot();
    const crasher = join(mkdtempSync(join(tmpdir(), 'svc-crasher-')), 'llama-server');
    writeFileSync(crasher, '#!/bin/sh\necho "fatal: this engine always crashes" >&2\nexit 7\n');
    chmodSync(crasher, 0o755);
    const gw = await start(home.home, crasher);
    const load = runSvc(['slot', 'load', 'chat'], { home: home.home, env: { SVC_API_URL: gw.url } });
    expect(load.status).not.toBe(0);
    expect(load.stderr).toContain('slot.load_failed');
    const final = await waitFor(() => slot(gw), { what: 'the crash-loop cap', until: (s) => s.last_error?.code === 'slot.crash_loop', timeout: 60_000 });
    expect(final.state).toBe('error');
    expect(final.last_error).toMatchObject({ exit_code: 7 });
    expect(final.last_error.stderr_tail).toContain('this engine always crashes');
  }, 120_000);

  it('with idle_timeout_s = 1 the slot stops when idle, and `svc slot load` brings it back', async () => {
    const home = await homeWithChatSlot('idle_timeout_s = 1');
    const gw = await start(home.home);
    await api(gw.url, '/api/slots/chat/load', { method: 'POST', body: {} });
    const { pid } = await slot(gw);
    await waitFor(() => slot(gw), { what: 'idle eviction', until: (s) => s.state === 'stopped', timeout: 20_000 });
    expect(processAlive(pid)).toBe(false);
    const load = runSvc(['slot', 'load', 'chat'], { home: home.home, env: { SVC_API_URL: gw.url } });
    expect(load.status, load.stderr).toBe(0);
    expect(load.stdout).toMatch(/\bready\b/);
    // (It may already be idle again: one second is short. The transitions tell the story.)
    const rows = (await api(gw.url, '/api/activity?action=slot.state&target=chat&limit=50&order=asc')).json.items as Array<{ details: { to: string; reason: string } }>;
    const moves = rows.map((r) => `${r.details.to}${r.details.to === 'stopping' ? `(${r.details.reason})` : ''}`);
    expect(moves.join(' ')).toMatch(/ready stopping\(evicted: idle\) stopped starting( warming)? ready/);
  }, 120_000);

  it('a gateway killed while the engine runs: the next gateway re-adopts it, ready, same pid', async () => {
    const home = await homeWithChatSlot();
    const first = await start(home.home);
    await api(first.url, '/api/slots/chat/load', { method: 'POST', body: {} });
    const { pid } = await slot(first);
    await first.kill();
    gateways.splice(gateways.indexOf(first), 1);
    expect(processAlive(pid)).toBe(true);
    const second = await start(home.home);
    // Adoption follows listen (nothing slow comes before it): the slot turns ready on its own.
    await expect.poll(async () => (await slot(second)).state, { timeout: 10_000 }).toBe('ready');
    expect(await slot(second)).toMatchObject({ state: 'ready', pid });
    // A graceful stop of the gateway stops its engines.
    await second.stop();
    gateways.splice(gateways.indexOf(second), 1);
    expect(processAlive(pid)).toBe(false);
  }, 120_000);
});
