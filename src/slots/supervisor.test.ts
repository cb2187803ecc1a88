// The supervisor against real engine processes: the fault engine (test/fixtures) for the
// faults no real engine can be made to show. The llama-server path is in test/slots.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RegistryFileSchema } from '../config/schema/registry.js';
import { SlotError } from '../protocol/errors.js';
import { setup, stopSupervisors, supervisors } from '../../test/helpers/supervisor.js';
import { waitFor } from '../../test/helpers/wait.js';
import { isAlive, sameCommand } from '../lib/process.js';

afterEach(stopSupervisors);

describe('SlotSupervisor', () => {
  it('starts a slot through starting and warming to ready, and records state.json', async () => {
    const { supervisor, transitions, paths } = await setup({ chat: '[server]\nextra_args = "--load-ms 300"' });
    const ready = await supervisor.ensureReady('chat');
    expect(ready.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(transitions.map((t) => t.to)).toEqual(['starting', 'warming', 'ready']);
    const view = supervisor.view('chat');
    expect(view).toMatchObject({ state: 'ready', enabled: true });
    expect(isAlive(view.pid!)).toBe(true);
    await supervisor.flushState();
    const saved = JSON.parse(readFileSync(join(paths.stateRoot, 'slots/chat/state.json'), 'utf8'));
    expect(saved).toMatchObject({ name: 'chat', state: 'ready', pid: view.pid });
  });

  it('concurrent callers share one start', async () => {
    const { supervisor, transitions } = await setup({ chat: '' });
    const results = await Promise.all([1, 2, 3, 4].map(() => supervisor.ensureReady('chat')));
    expect(new Set(results.map((r) => r.baseUrl)).size).toBe(1);
    expect(transitions.filter((t) => t.to === 'starting')).toHaveLength(1);
  });

  it('a killed engine goes to error with the signal and stderr tail, then restarts by itself', async () => {
    const { supervisor, transitions } = await setup({ chat: '[server]\nextra_args = "--say hello-from-the-engine"' });
    const first = (await supervisor.ensureReady('chat'), supervisor.view('chat').pid!);
    process.kill(first, 'SIGKILL');
    await waitFor(() => supervisor.view('chat'), { what: 'error state', until: (view) => view.state === 'error' });
    const failed = supervisor.view('chat').last_error!;
    expect(failed).toMatchObject({ signal: 'SIGKILL' });
    expect(failed.stderr_tail).toContain('hello-from-the-engine');
    await waitFor(() => supervisor.view('chat'), { what: 'automatic restart', until: (view) => view.state === 'ready' && view.pid !== first });
    expect(supervisor.view('chat').restarts).toBe(1);
    expect(transitions.map((t) => t.to)).toContain('error');
  });

  it('an engine that always crashes stops at the crash-loop cap, in error', async () => {
    // Every backoff is 400 ms: a restart chat still had pending from its last crash would be due
    // before the restart of slot b, which crashes later (below).
    const policy = { backoffBaseMs: 400, backoffMaxMs: 400, crashLoopCount: 3, crashLoopWindowMs: 60_000 };
    const { supervisor, transitions } = await setup({ chat: '[server]\nextra_args = "--exit-after-ms 50 --exit-code 3 --load-ms 100000"', b: '' }, '', { policy });
    await expect(supervisor.ensureReady('chat')).rejects.toMatchObject({ code: 'slot.load_failed' });
    await waitFor(() => supervisor.view('chat'), { what: 'crash loop', until: (view) => view.last_error?.code === 'slot.crash_loop', timeout: 20_000 });
    const view = supervisor.view('chat');
    expect(view.state).toBe('error');
    expect(view.last_error).toMatchObject({ exit_code: 3 });
    expect(view.last_error?.message).toMatch(/exited while loading \(exit code 3\).*not restarting/);
    const starts = (slot: string) => transitions.filter((t) => t.slot === slot && t.to === 'starting').length;
    expect(starts('chat')).toBe(3);
    // b crashes after chat gave up; once b's restart (same backoff) has come, chat's would have too.
    await supervisor.ensureReady('b');
    process.kill(supervisor.view('b').pid!, 'SIGKILL');
    await waitFor(() => starts('b'), { what: 'slot b restarted after its crash', until: (count) => count === 2 });
    expect(starts('chat')).toBe(3);
    expect(supervisor.view('chat')).toMatchObject({ state: 'error', restarts: view.restarts });
  });

  it('gives up at once when the engine exits during start, without waiting out the deadline', async () => {
    const { supervisor } = await setup({ chat: 'load_timeout_s = 3600\n[server]\nextra_args = "--exit-after-ms 100 --never-healthy"' });
    const error = await supervisor.ensureReady('chat').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlotError);
    expect((error as SlotError).message).toMatch(/exited while loading \(exit code 1\)/);
  });

  it('an engine that never becomes healthy fails at the load deadline and is killed', async () => {
    const { supervisor, transitions } = await setup({ chat: 'load_timeout_s = 1\n[server]\nextra_args = "--never-healthy"' });
    const error = await supervisor.ensureReady('chat').catch((e: unknown) => e);
    expect((error as SlotError).code).toBe('slot.load_failed');
    expect((error as SlotError).message).toMatch(/did not become healthy within 1 s/);
    expect(transitions.map((t) => t.to)).toEqual(['starting', 'warming', 'error']);
    const pid = Number(/pid (\d+)/.exec((await supervisor.logs('chat', 50)).join('\n'))?.[1]);
    expect(isAlive(pid)).toBe(false);
  });

  it('an engine that ignores SIGTERM is SIGKILLed after the grace period', async () => {
    const { supervisor } = await setup({ chat: '[server]\nextra_args = "--ignore-sigterm"' });
    await supervisor.ensureReady('chat');
    const pid = supervisor.view('chat').pid!;
    await supervisor.unload('chat');
    expect(isAlive(pid)).toBe(false);
    expect(supervisor.view('chat').state).toBe('stopped');
    expect((await supervisor.logs('chat', 20)).join('\n')).toContain('ignoring SIGTERM');
  });

  it('evicts a slot idle past idle_timeout_s and wakes it on the next request', async () => {
    const { supervisor, transitions } = await setup({ chat: 'idle_timeout_s = 1' });
    await supervisor.ensureReady('chat');
    await waitFor(() => supervisor.view('chat'), { what: 'idle eviction', until: (view) => view.state === 'stopped', timeout: 10_000 });
    expect(transitions.find((t) => t.to === 'stopping')?.reason).toBe('evicted: idle');
    await supervisor.ensureReady('chat');
    expect(supervisor.view('chat').state).toBe('ready');
  });

  it('never evicts a slot with a request in flight', async () => {
    const { supervisor, transitions } = await setup({ chat: 'idle_timeout_s = 1', other: 'idle_timeout_s = 1' });
    await supervisor.ensureReady('chat');
    const release = supervisor.acquire('chat');
    // other was last used after chat, with the same idle timeout: by the tick that evicts it,
    // chat has been idle past its timeout too, and only its request in flight keeps it.
    await supervisor.ensureReady('other');
    await waitFor(() => supervisor.view('other'), { what: 'idle eviction of the other slot', until: (view) => view.state === 'stopped', timeout: 10_000 });
    expect(transitions.find((t) => t.slot === 'other' && t.to === 'stopping')?.reason).toBe('evicted: idle');
    expect(supervisor.view('chat')).toMatchObject({ state: 'ready', in_flight: 1 });
    expect(transitions.filter((t) => t.slot === 'chat' && t.to === 'stopping')).toEqual([]);
    release();
    await waitFor(() => supervisor.view('chat'), { what: 'eviction after release', until: (view) => view.state === 'stopped', timeout: 10_000 });
  });

  it('max_slots: a new slot evicts the LRU idle one, or fails with slot.capacity when all are busy', async () => {
    const { supervisor } = await setup({ a: '', b: '' }, '[slots]\nmax_slots = 1\n');
    await supervisor.ensureReady('a');
    await supervisor.ensureReady('b');
    expect(supervisor.view('a').state).toBe('stopped');
    const release = supervisor.acquire('b');
    await expect(supervisor.ensureReady('a')).rejects.toMatchObject({ code: 'slot.capacity' });
    release();
  });

  it('evicts idle slots under memory pressure', async () => {
    const { supervisor } = await setup({ chat: '' }, '[slots]\nevict_pressure_mb = 1000\n', { memAvailableMb: () => 10 });
    await supervisor.ensureReady('chat');
    await waitFor(() => supervisor.view('chat'), { what: 'pressure eviction', until: (view) => view.state === 'stopped' });
  });

  it('a ready engine that stops answering (its process alive) goes to error with slot.unhealthy, is killed and restarted', async () => {
    const { supervisor, transitions } = await setup({ chat: '[server]\nextra_args = "--hang-after 200"' }, '[slots]\nhealth_interval_s = 0.1\nhealth_failures = 2\n');
    await supervisor.ensureReady('chat');
    const first = supervisor.view('chat').pid!;
    await waitFor(() => supervisor.view('chat'), { what: 'slot.unhealthy', until: (view) => view.last_error?.code === 'slot.unhealthy', timeout: 20_000 });
    expect(supervisor.view('chat').last_error?.message).toMatch(/2 health probe\(s\) in a row failed \(last: down/);
    expect(supervisor.view('chat').last_error?.stderr_tail).toContain('fault-engine: hanging');
    await waitFor(() => supervisor.view('chat'), { what: 'restart after unhealthy', until: (view) => view.state === 'ready' && view.pid !== first, timeout: 20_000 });
    expect(isAlive(first)).toBe(false);
    expect(supervisor.view('chat').restarts).toBe(1);
    const moves = transitions.map((t) => `${t.from}>${t.to}`);
    expect(moves.slice(moves.indexOf('ready>error'), moves.indexOf('ready>error') + 2)).toEqual(['ready>error', 'error>starting']);
  }, 40_000);

  it('load on another model (what swap does) stops the engine and starts it on that model; the same model keeps the engine', async () => {
    const { supervisor, transitions, config, setConfig } = await setup({ chat: '' });
    const file = config().slots[0]!.config.model.path!;
    setConfig({ ...config(), registry: RegistryFileSchema.parse({ models: { a: { path: file }, b: { path: file } } }) });
    await supervisor.load('chat', 'a');
    const first = supervisor.view('chat');
    expect(first).toMatchObject({ state: 'ready', model: 'a' });
    await expect(supervisor.load('chat', 'unknown')).rejects.toMatchObject({ code: 'slot.model_missing' });
    expect(supervisor.view('chat').pid).toBe(first.pid); // refused before anything was stopped

    const before = transitions.length;
    expect(await supervisor.load('chat', 'b')).toMatchObject({ modelId: 'b', started: true });
    const second = supervisor.view('chat');
    expect(second).toMatchObject({ state: 'ready', model: 'b' });
    expect(second.pid).not.toBe(first.pid);
    expect(isAlive(first.pid!)).toBe(false);
    const moves = transitions.slice(before);
    expect(moves.slice(0, 3).map((t) => `${t.from}>${t.to} ${t.reason}`)).toEqual(['ready>stopping model change', 'stopping>stopped model change', 'stopped>starting start']);
    expect(moves.at(-1)?.to).toBe('ready');

    const settled = transitions.length;
    expect(await supervisor.load('chat', 'b')).toMatchObject({ modelId: 'b', started: false });
    expect(supervisor.view('chat').pid).toBe(second.pid);
    expect(transitions.length).toBe(settled);
  });

  it('refuses disabled and unknown slots with clear errors', async () => {
    const { supervisor } = await setup({ off: 'enabled = false' });
    await expect(supervisor.ensureReady('off')).rejects.toMatchObject({ code: 'slot.disabled' });
    await expect(supervisor.ensureReady('nope')).rejects.toMatchObject({ code: 'slot.not_found' });
    expect(supervisor.view('off').state).toBe('disabled');
  });

  it('a restarted gateway re-adopts a running engine (same pid)', async () => {
    const { supervisor, make } = await setup({ chat: '' });
    await supervisor.ensureReady('chat');
    const pid = supervisor.view('chat').pid!;
    supervisors.splice(supervisors.indexOf(supervisor), 1);
    await supervisor.flushState();
    supervisor.detach(); // the first gateway "crashes": it stops nothing and watches nothing
    const second = make();
    await second.init();
    expect(second.view('chat')).toMatchObject({ state: 'ready', pid });
    process.kill(pid, 'SIGKILL');
    await waitFor(() => second.view('chat'), { what: 'adopted engine death noticed', until: (view) => view.state !== 'ready' || view.pid !== pid });
  });
});

describe('sameCommand (recognising an engine to re-adopt)', () => {
  const saved = ['/opt/llama/llama-server', '--port', '8081', '--model', '/m/tiny.gguf'];
  it('matches the same arguments whatever form the executable takes, and behind a wrapper that execs an interpreter', () => {
    expect(sameCommand(['./llama-server', '--port', '8081', '--model', '/m/tiny.gguf'], saved)).toBe(true);
    expect(sameCommand(['/usr/bin/node', '/t/fault-engine.mjs', '--port', '8081', '--model', '/m/tiny.gguf'], saved)).toBe(true);
  });
  it('refuses other arguments, a shorter argv, and unknown sides', () => {
    expect(sameCommand(['/opt/llama/llama-server', '--port', '8082', '--model', '/m/tiny.gguf'], saved)).toBe(false);
    expect(sameCommand(['--model', '/m/tiny.gguf'], saved)).toBe(false);
    expect(sameCommand(undefined, saved)).toBe(false);
    expect(sameCommand(['x'], null)).toBe(false);
  });
});
