// The fault suite, engines and clients (issue 6 §3): an engine killed mid-stream, one that
// never becomes healthy, one that ignores SIGTERM, and a client that leaves mid-stream.
// Real gateway, real engine processes: llama-server on the tiny model where a real engine
// can show the fault, the fault engine (test/fixtures/fault-engine.mjs) where none can.
import { chmodSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { portIsFree } from '../src/lib/process.js';
import { homeWithFaultSlots } from './helpers/faults.js';
import { api, useTempGateways, type Gateway } from './helpers/gateway.js';
import { homeWithTinySlots, llamaServerPath, llamaServerSkipReason, processAlive } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

const LLAMA_SERVER = llamaServerPath();
if (!LLAMA_SERVER) console.warn(llamaServerSkipReason());

const { gateway: start } = useTempGateways(afterEach);
const slot = async (gw: Gateway, name: string) => (await api(gw.url, `/api/slots/${name}`)).json;
const chat = (gw: Gateway, body: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...(signal && { signal }) });

describe.skipIf(!LLAMA_SERVER)('an engine killed with SIGKILL mid-stream', () => {
  it('the client gets one final error event, the slot restarts, the other slot is untouched', async () => {
    // 8192: a generation that outlasts a loaded machine between the first chunk and the kill.
    const home = await homeWithTinySlots([{ name: 'victim', contextSize: 8192 }, { name: 'bystander' }]);
    const gw = await start(home, { env: { SVC_LLAMA_SERVER: LLAMA_SERVER! } });
    await (await chat(gw, { model: 'bystander', messages: [{ role: 'user', content: 'warm' }], max_tokens: 2 })).text();
    const bystanderPid = (await slot(gw, 'bystander')).pid as number;
    expect((await api(gw.url, '/api/slots/victim/load', { method: 'POST' })).status).toBe(200);
    const victimPid = (await slot(gw, 'victim')).pid as number;

    const response = await chat(gw, { model: 'victim', messages: [{ role: 'user', content: 'go' }], max_tokens: 100000, ignore_eos: true, stream: true });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    process.kill(victimPid, 'SIGKILL');
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);

    const events = text.split('\n\n').filter((e) => e.startsWith('data: '));
    const last = JSON.parse(events.at(-1)!.slice('data: '.length)) as { error: { code: string; message: string } };
    expect(last.error.code).toMatch(/^dispatch\.upstream_/);
    expect(events.filter((e) => e.includes('"error"'))).toHaveLength(1);
    expect(text).not.toContain('data: [DONE]');

    // The supervisor restarts it on its own: a new engine, ready.
    await waitFor(() => slot(gw, 'victim'), { what: 'the victim restarted and ready', until: (s) => s.state === 'ready' && s.pid !== victimPid, timeout: 20_000 });
    expect((await slot(gw, 'victim')).restarts).toBeGreaterThanOrEqual(1);
    const bystander = await slot(gw, 'bystander');
    expect([bystander.state, bystander.pid, bystander.restarts]).toEqual(['ready', bystanderPid, 0]);
    expect((await chat(gw, { model: 'bystander', messages: [{ role: 'user', content: 'still there?' }], max_tokens: 4 })).status).toBe(200);
    expect((await slot(gw, 'victim')).in_flight).toBe(0);
  }, 90_000);
});

describe('an engine that never becomes healthy', () => {
  it('hits load_timeout_s: a clear error, the engine gone, the port free, nothing in flight', async () => {
    const home = await homeWithFaultSlots([{ name: 'stuck', knobs: '--never-healthy', extra: 'load_timeout_s = 2' }]);
    const gw = await start(home, { env: home.env });
    const response = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'stuck', messages: [{ role: 'user', content: 'hi' }] } });
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('slot.load_failed');
    expect(response.json.error.message).toMatch(/2 ?s|load_timeout_s|healthy/i);
    const view = await slot(gw, 'stuck');
    expect(view.state).toBe('error');
    expect([view.pid, view.in_flight]).toEqual([null, 0]);
    await waitFor(() => portIsFree(view.port as number), { what: `the stuck engine's port ${view.port} to be free` });
    expect((await api(gw.url, '/api/health/system')).status).toBe(200);
  }, 30_000);
});

describe('an engine that ignores SIGTERM', () => {
  it('unload escalates to SIGKILL after the grace period', async () => {
    const home = await homeWithFaultSlots([{ name: 'stubborn', knobs: '--ignore-sigterm' }]);
    const gw = await start(home, { env: home.env });
    expect((await api(gw.url, '/api/slots/stubborn/load', { method: 'POST' })).status).toBe(200);
    const { pid } = await slot(gw, 'stubborn');
    expect(processAlive(pid)).toBe(true);
    const unloaded = await api(gw.url, '/api/slots/stubborn/unload', { method: 'POST' });
    expect(unloaded.status).toBe(200);
    expect(unloaded.json.state).toBe('stopped');
    await waitFor(() => !processAlive(pid), { what: 'the stubborn engine to be killed' });
    const logs = (await api(gw.url, '/api/slots/stubborn/logs?lines=50')).json.lines as string[];
    expect(logs.some((l) => l.includes('ignoring SIGTERM'))).toBe(true);
  }, 60_000);
});

describe('a client that disconnects mid-stream', () => {
  it('the engine sees its connection close and the in-flight count returns to zero', async () => {
    const home = await homeWithFaultSlots([{ name: 'streamer', knobs: '--chunk-ms 20' }]);
    const gw = await start(home, { env: home.env });
    await (await chat(gw, { model: 'streamer', messages: [], max_tokens: 1 })).text(); // loaded
    const abort = new AbortController();
    const response = await chat(gw, { model: 'streamer', messages: [], max_tokens: 100000, stream: true }, abort.signal);
    const reader = response.body!.getReader();
    for (let got = ''; (got.match(/data: /g) ?? []).length < 5;) got += new TextDecoder().decode((await reader.read()).value);
    expect((await slot(gw, 'streamer')).in_flight).toBe(1);
    abort.abort();

    const closedAtEngine = async () => ((await api(gw.url, '/api/slots/streamer/logs?lines=50')).json.lines as string[]).some((l) => /client closed after \d+ chunks/.test(l));
    await waitFor(closedAtEngine, { what: 'the engine to log the closed stream' });
    await waitFor(() => slot(gw, 'streamer'), { what: 'the slot to have no request in flight', until: (s) => s.in_flight === 0 });
    // Still serving.
    expect((await chat(gw, { model: 'streamer', messages: [], max_tokens: 2 })).status).toBe(200);
  }, 30_000);
});

describe('a start that fails for a configuration reason', () => {
  it('no llama-server binary: a chat request gets 503 slot.binary_missing (never a 500) and the view keeps the error', async () => {
    const home = await homeWithFaultSlots([{ name: 'nobinary' }]);
    const missing = join(home.home, 'no-such-llama-server');
    const gw = await start(home, { env: { SVC_LLAMA_SERVER: missing, PATH: dirname(process.execPath) } });
    const response = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'nobinary', messages: [{ role: 'user', content: 'hi' }] } });
    expect([response.status, response.json.error.code]).toEqual([503, 'slot.binary_missing']);
    expect(response.json.error.message).toContain(missing);
    const view = await slot(gw, 'nobinary');
    expect(view.state).toBe('stopped');
    expect(view.last_error).toMatchObject({ code: 'slot.binary_missing', message: expect.stringContaining('SVC_LLAMA_SERVER') });
  }, 30_000);

  it('a binary that cannot be executed: 503 slot.spawn_failed, the slot in error with the reason', async () => {
    const home = await homeWithFaultSlots([{ name: 'noexec' }]);
    const binary = join(home.home, 'not-a-program');
    writeFileSync(binary, '#!/nonexistent/interpreter\n'); // executable, but exec fails (ENOENT)
    chmodSync(binary, 0o755);
    const gw = await start(home, { env: { SVC_LLAMA_SERVER: binary } });
    const response = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'noexec', messages: [{ role: 'user', content: 'hi' }] } });
    expect([response.status, response.json.error.code]).toEqual([503, 'slot.spawn_failed']);
    const view = await slot(gw, 'noexec');
    expect(view.state).toBe('error');
    expect(view.last_error).toMatchObject({ code: 'slot.spawn_failed', message: expect.stringMatching(/could not run/) });
  }, 30_000);
});

describe('an engine that hangs while ready (its process alive)', () => {
  it('is noticed by the health watch: error with slot.unhealthy, killed, and a new engine (another pid) becomes ready', async () => {
    const home = await homeWithFaultSlots([{ name: 'hung', knobs: '--hang-after 500' }], { 'svc.toml': '[slots]\nhealth_interval_s = 0.2\nhealth_failures = 2\n' });
    const gw = await start(home, { env: home.env });
    expect((await api(gw.url, '/api/slots/hung/load', { method: 'POST' })).status).toBe(200);
    const first = (await slot(gw, 'hung')).pid as number;
    await waitFor(() => slot(gw, 'hung'), { what: 'the hung engine to be found unhealthy', until: (s) => s.last_error?.code === 'slot.unhealthy', timeout: 30_000 });
    const failed = (await slot(gw, 'hung')).last_error;
    expect(failed.message).toMatch(/health probe/);
    expect(failed.stderr_tail).toContain('fault-engine: hanging');
    await waitFor(() => slot(gw, 'hung'), { what: 'the hung engine restarted and ready', until: (s) => s.state === 'ready' && s.pid !== first, timeout: 30_000 });
    expect((await slot(gw, 'hung')).restarts).toBeGreaterThanOrEqual(1);
    expect(processAlive(first)).toBe(false);
    const rows = (await api(gw.url, '/api/activity?target=hung&limit=50')).json;
    expect(JSON.stringify(rows)).toContain('slot.unhealthy');
  }, 60_000);
});
