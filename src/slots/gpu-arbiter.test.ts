// The GPU arbiter over a real supervisor and fault-engine processes, with its own clock, so
// the idle restore is checked at the minute it is due without waiting for it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SvcError } from '../protocol/errors.js';
import { setup, stopSupervisors } from '../../test/helpers/supervisor.js';
import { waitFor } from '../../test/helpers/wait.js';
import { GpuArbiter, type GpuArbiterView } from './gpu-arbiter.js';

afterEach(stopSupervisors);

const MINUTE = 60_000;

async function arbiterSetup() {
  const env = await setup({
    chat: 'device = "gpu-rocm"',
    embed: 'device = "gpu-rocm"\ntype = "embedding"',
    pinned: 'device = "gpu-rocm"\ngpu_index = 1',
    cpuchat: '',
    img: 'device = "gpu-rocm"\ngpu_index = 0\ntype = "image"\nprofile = "comfyui"',
  });
  let clock = 1_000_000;
  const changes: Array<{ view: GpuArbiterView; reason: string }> = [];
  const arbiter = new GpuArbiter({ supervisor: env.supervisor, config: env.config, now: () => clock, onChange: (view, reason) => changes.push({ view, reason }) });
  const advance = (ms: number) => (clock += ms);
  return { ...env, arbiter, changes, advance };
}

const codeOf = (promise: Promise<unknown>) => promise.then(() => 'ok', (e: unknown) => (e instanceof SvcError ? e.code : String(e)));

describe('GpuArbiter', () => {
  it('image mode stops the running inference slots sharing the GPU, and only those', async () => {
    const { supervisor, arbiter, changes } = await arbiterSetup();
    for (const name of ['chat', 'embed', 'pinned', 'cpuchat']) await supervisor.ensureReady(name);
    await arbiter.enterImageMode('img');
    expect(arbiter.view()).toMatchObject({ mode: 'image', image_slot: 'img', stopped_slots: ['chat', 'embed'], idle_restore_minutes: 60 });
    expect(['chat', 'embed', 'pinned', 'cpuchat'].map((n) => supervisor.view(n).state)).toEqual(['stopped', 'stopped', 'ready', 'ready']);
    expect(changes.map((c) => c.reason)).toEqual(['image mode for img; stopped chat, embed']);
    // A second image request changes nothing.
    await arbiter.enterImageMode('img');
    expect(changes).toHaveLength(1);
  });

  it('restores after idle_restore_minutes, read from the file at each tick', async () => {
    const { supervisor, arbiter, advance, paths, reload } = await arbiterSetup();
    await supervisor.ensureReady('chat');
    await arbiter.enterImageMode('img');
    await supervisor.ensureReady('img');
    advance(59 * MINUTE);
    await arbiter.tick();
    expect(arbiter.mode).toBe('image');

    // 0 = never: an hour later still in image mode.
    const file = join(paths.slotsDir, 'img.toml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('[model]', '[image]\nidle_restore_minutes = 0\n[model]'));
    await reload();
    advance(60 * MINUTE);
    await arbiter.tick();
    expect(arbiter.view()).toMatchObject({ mode: 'image', idle_restore_minutes: 0, restore_at: null });

    // 90 minutes: due (119 minutes have passed), restored without the image slot restarting first.
    writeFileSync(file, readFileSync(file, 'utf8').replace('idle_restore_minutes = 0', 'idle_restore_minutes = 90'));
    await reload();
    expect(supervisor.view('img').state).toBe('ready');
    await arbiter.tick();
    expect(arbiter.view()).toMatchObject({ mode: 'inference', stopped_slots: [] });
    expect(supervisor.view('img').state).toBe('stopped');
    await waitFor(() => supervisor.view('chat'), { what: 'chat restored', until: (view) => view.state === 'ready' });
  });

  it('an inference request takes the GPU back unless the image slot is busy; busy inference slots hold image mode off', async () => {
    const { supervisor, arbiter } = await arbiterSetup();
    await supervisor.ensureReady('chat');
    const chatBusy = supervisor.acquire('chat');
    expect(await codeOf(arbiter.enterImageMode('img'))).toBe('gpu.inference_mode');
    expect(supervisor.view('chat').state).toBe('ready');
    chatBusy();

    await arbiter.enterImageMode('img');
    await supervisor.ensureReady('img');
    const imageBusy = supervisor.acquire('img');
    expect(await codeOf(arbiter.beforeInference('chat'))).toBe('gpu.image_mode');
    await arbiter.beforeInference('cpuchat'); // not on the GPU: no effect
    expect(arbiter.mode).toBe('image');
    imageBusy();
    await arbiter.beforeInference('chat');
    expect(arbiter.mode).toBe('inference');
    await waitFor(() => supervisor.view('chat'), { what: 'chat restored', until: (view) => view.state === 'ready' });
  });
});
