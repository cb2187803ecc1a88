// A llama-server slot with rpc_workers: --rpc, the layers it offloads, and the check of the
// workers before the engine is spawned (the launch's preflight).
import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { SlotFileSchema } from '../../config/schema/slot.js';
import { fakeBin, launchContext } from '../../../test/helpers/launch-context.js';
import { flagValue } from '../argv.js';
import { buildLlamaArgv } from './argv.js';
import { llamaServerAdapter } from './adapter.js';
import { SEED_PROFILES } from '../../config/profiles.js';

const MODEL = { id: 'tiny', path: '/models/tiny.gguf', mmproj: null, tags: [], contextLength: 2048 };
const argv = (slot: Record<string, unknown>, model: Record<string, unknown> = {}) => buildLlamaArgv({
  config: SlotFileSchema.parse({ slot: { name: 'big', port: 8081, ...slot }, model }),
  model: MODEL, profile: SEED_PROFILES['cpu-llm']!, nativeContext: 2048, host: '127.0.0.1', isFile: () => false,
});

describe('buildLlamaArgv with rpc_workers', () => {
  it('passes the workers to --rpc, comma-separated, in the slot file\'s order', () => {
    const out = argv({ device: 'gpu-vulkan', rpc_workers: ['10.0.0.2:50052', 'worker-b.lan:8090'] });
    expect(flagValue(out, '--rpc')).toBe('10.0.0.2:50052,worker-b.lan:8090');
  });

  it('offloads the layers of a cpu slot to its workers (-ngl), where a cpu slot alone offloads none', () => {
    expect(flagValue(argv({ device: 'cpu' }), '-ngl')).toBe('0');
    expect(flagValue(argv({ device: 'cpu', rpc_workers: ['10.0.0.2:50052'] }), '-ngl')).toBe('999');
    expect(flagValue(argv({ device: 'cpu', rpc_workers: ['10.0.0.2:50052'] }, { n_gpu_layers: 1 }), '-ngl')).toBe('1');
  });

  it('adds no --rpc without workers', () => {
    expect(argv({ device: 'cpu' })).not.toContain('--rpc');
  });

  it('the slot file takes "host:port" only: no scheme, no IPv6 (llama.cpp\'s RPC client connects over IPv4)', () => {
    for (const bad of ['http://10.0.0.2:50052', '10.0.0.2', '[fd00::1]:50052', '10.0.0.2:0', '10.0.0.2:70000', ':50052']) {
      expect(SlotFileSchema.safeParse({ slot: { name: 'big', port: 8081, rpc_workers: [bad] } }).success, bad).toBe(false);
    }
  });
});

describe('llamaServerAdapter.launch with rpc_workers', () => {
  const bin = fakeBin(['llama-server']);
  afterAll(() => bin.remove());
  const context = (workers: string[]) => launchContext({ slot: { name: 'big', device: 'cpu', rpc_workers: workers }, env: { PATH: bin.dir }, resolved: { id: 'tiny', path: bin.path('llama-server') } });

  it('has a preflight only when the slot has workers', async () => {
    expect((await llamaServerAdapter.launch(context([]))).preflight).toBeUndefined();
    expect((await llamaServerAdapter.launch(context(['127.0.0.1:1']))).preflight).toBeTypeOf('function');
  });

  it('the preflight passes when each worker accepts a connection and names the one that does not', async () => {
    const worker = createServer((socket) => socket.destroy());
    await new Promise<void>((done) => worker.listen(0, '127.0.0.1', done));
    const up = `127.0.0.1:${(worker.address() as { port: number }).port}`;
    const spare = createServer();
    await new Promise<void>((done) => spare.listen(0, '127.0.0.1', done));
    const down = `127.0.0.1:${(spare.address() as { port: number }).port}`;
    await new Promise((done) => spare.close(done));
    try {
      const ok = await llamaServerAdapter.launch(context([up]));
      await expect(ok.preflight!(AbortSignal.timeout(5_000))).resolves.toBeUndefined();
      const bad = await llamaServerAdapter.launch(context([up, down]));
      await expect(bad.preflight!(AbortSignal.timeout(5_000))).rejects.toMatchObject({ code: 'slot.rpc_worker_unreachable', details: { worker: down } });
    } finally {
      await new Promise((done) => worker.close(done));
    }
  });
});
