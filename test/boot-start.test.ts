// [slot].enabled = "Start this slot at startup" (docs/configuration.md, "Slot files"): the real gateway
// starts every enabled slot after it listens, without a request; within max_slots and the
// memory-pressure floor, never evicting; re-adopted engines count as started.
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { homeWithFaultSlots } from './helpers/faults.js';
import { api, runSvc, useTempGateways, type Gateway } from './helpers/gateway.js';
import { homeWithTinySlots, processAlive } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

const { gateway: start } = useTempGateways(afterEach);

interface View { name: string; state: string; pid: number | null; restarts: number; last_error: { code: string; message: string } | null }
const slots = async (gw: Gateway): Promise<Record<string, View>> =>
  Object.fromEntries(((await api(gw.url, '/api/slots')).json.slots as View[]).map((s) => [s.name, s]));
const states = (all: Record<string, View>) => Object.fromEntries(Object.entries(all).map(([name, s]) => [name, s.state]));

/** No request goes to /v1: only /api/slots is read while waiting. */
const settle = (gw: Gateway, check: (all: Record<string, View>) => boolean, what: string) => waitFor(() => slots(gw), { what, until: check, timeout: 60_000 });

describe('enabled slots start with the gateway', () => {
  it('two enabled built-in slots reach ready without a request; the disabled one stays down; a graceful restart brings both back', async () => {
    const home = await homeWithTinySlots([
      { name: 'alpha', provider: 'builtin' },
      { name: 'beta', provider: 'builtin', type: 'embedding' },
      { name: 'gamma', provider: 'builtin', extra: 'enabled = false' },
    ]);
    writeFileSync(`${home.configRoot}/svc.toml`, '[slots]\nevict_pressure_mb = 0\n'); // not the host's free memory
    const first = await start(home, { env: { PATH: '/usr/bin:/bin' } });
    const booted = await settle(first, (s) => s.alpha!.state === 'ready' && s.beta!.state === 'ready', 'both enabled slots ready');
    expect(states(booted)).toEqual({ alpha: 'ready', beta: 'ready', gamma: 'disabled' });
    expect([booted.gamma!.pid, booted.gamma!.last_error]).toEqual([null, null]);
    const pids = [booted.alpha!.pid!, booted.beta!.pid!];

    expect(await first.stop()).toBe(0); // SIGTERM: engines stopped, state.json says stopped
    expect(pids.map(processAlive)).toEqual([false, false]);
    const second = await start(home, { env: { PATH: '/usr/bin:/bin' } });
    const again = await settle(second, (s) => s.alpha!.state === 'ready' && s.beta!.state === 'ready', 'both ready after a restart');
    expect(states(again)).toEqual({ alpha: 'ready', beta: 'ready', gamma: 'disabled' });
    expect([again.alpha!.pid, again.beta!.pid].some((pid) => pids.includes(pid!))).toBe(false); // new engines
  }, 120_000);

  it('max_slots = 1: the first by name starts, the other stays stopped with slot.capacity in its view and in `svc slot status`', async () => {
    const home = await homeWithFaultSlots([{ name: 'one' }, { name: 'two' }], { 'svc.toml': '[slots]\nmax_slots = 1\nevict_pressure_mb = 0\n' });
    const gw = await start(home, { env: home.env });
    const booted = await settle(gw, (s) => s.one!.state === 'ready' && s.two!.last_error !== null, 'one ready, two refused');
    expect(states(booted)).toEqual({ one: 'ready', two: 'stopped' });
    expect(booted.two!.last_error).toMatchObject({ code: 'slot.capacity', message: expect.stringMatching(/max_slots \(1\).*\(one\)/) });
    const status = runSvc(['slot', 'status', 'two'], { home: home.home, env: { SVC_API_URL: gw.url } });
    expect(status.stdout).toMatch(/^last error\s+slot\.capacity: not started with the gateway/m);
  }, 60_000);

  it('[slots].start_at_boot = false: on demand only; a request starts its slot and the others stay stopped', async () => {
    const home = await homeWithFaultSlots([{ name: 'a' }, { name: 'b' }], { 'svc.toml': '[slots]\nstart_at_boot = false\nevict_pressure_mb = 0\n' });
    const gw = await start(home, { env: home.env });
    // Boot starts go in name order from the moment the gateway listens: had they run, `a`
    // would be on its way up (or up) by the time `b`, started by this request, has answered.
    const answer = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'b', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 } });
    expect(answer.status, answer.text).toBe(200);
    const after = await slots(gw);
    expect(states(after)).toEqual({ a: 'stopped', b: 'ready' });
    expect(after.a!.last_error).toBeNull();
    const events = (await api(gw.url, '/api/events?type=slot.state')).json.events as Array<{ data: { slot: string } }>;
    expect(events.filter((e) => e.data.slot === 'a')).toEqual([]);
  }, 30_000);

  it('under the memory-pressure floor nothing starts, and each slot says why', async () => {
    const home = await homeWithFaultSlots([{ name: 'one' }], { 'svc.toml': '[slots]\nevict_pressure_mb = 100000000\n' });
    const gw = await start(home, { env: home.env });
    const booted = await settle(gw, (s) => s.one!.last_error !== null, 'a refusal');
    expect(booted.one!.state).toBe('stopped');
    expect(booted.one!.last_error).toMatchObject({ code: 'slot.memory_pressure', message: expect.stringMatching(/evict_pressure_mb \(100000000 MiB\)/) });
  }, 30_000);

  it('a slot whose boot start fails keeps its error in the view; the gateway serves and the next slot still starts', async () => {
    const home = await homeWithFaultSlots([{ name: 'abroken', knobs: '--exit-after-ms 50 --load-ms 100000' }, { name: 'bfine' }], { 'svc.toml': '[slots]\nevict_pressure_mb = 0\n' });
    const gw = await start(home, { env: home.env });
    const booted = await settle(gw, (s) => s.bfine!.state === 'ready' && s.abroken!.last_error !== null, 'bfine ready after abroken failed');
    expect(booted.abroken!.last_error!.code).toMatch(/^slot\.(load_failed|crash_loop)$/);
    expect((await api(gw.url, '/api/health/system')).status).toBe(200);
  }, 30_000);

  it('engines re-adopted from a killed gateway count as started: same pids, no second start', async () => {
    const home = await homeWithFaultSlots([{ name: 'one' }, { name: 'two' }], { 'svc.toml': '[slots]\nevict_pressure_mb = 0\n' });
    const first = await start(home, { env: home.env });
    const booted = await settle(first, (s) => s.one!.state === 'ready' && s.two!.state === 'ready', 'both ready');
    await first.kill(); // SIGKILL: the engines live on
    const since = new Date().toISOString();
    const second = await start(home, { env: home.env });
    const adopted = await settle(second, (s) => s.one!.state === 'ready' && s.two!.state === 'ready', 'both re-adopted');
    expect([adopted.one!.pid, adopted.two!.pid]).toEqual([booted.one!.pid, booted.two!.pid]);
    expect([adopted.one!.last_error, adopted.two!.last_error]).toEqual([null, null]);
    const moves = (await api(second.url, `/api/activity?action=slot.state&since=${since}&limit=100`)).json.items as Array<{ details: { to: string; reason: string } }>;
    expect(moves.map((r) => `${r.details.to}: ${r.details.reason}`).sort()).toEqual(['ready: adopted', 'ready: adopted']);
  }, 60_000);
});
