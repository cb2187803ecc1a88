import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeBin, launchContext, type ContextInput } from '../../../test/helpers/launch-context.js';
import { SlotError } from '../../protocol/errors.js';
import { llamaRpcAdapter } from './adapter.js';
import { buildRpcServerArgv } from './argv.js';
import { listeningHealth, listeningPorts } from './listening.js';

const bin = fakeBin(['rpc-server', 'llama/bin/llama-server', 'llama/bin/rpc-server']);
afterAll(() => bin.remove());
const worker = (over: Partial<ContextInput> = {}) => launchContext({
  ...over,
  slot: { name: 'lend', type: 'rpc-worker', provider: 'llama-rpc', device: 'cpu', port: 8090, ...over.slot },
  rpc: { host: '10.0.0.2', ...over.rpc },
  env: { PATH: bin.dir, ...over.env },
});

describe('buildRpcServerArgv', () => {
  const base = { slot: 'lend', host: '192.168.1.5', port: 8090, device: 'cpu' as const, threads: null, cache: false, extra: [] };

  it('binds [rpc].host on the slot port and pins the CPU device of a cpu slot', () => {
    expect(buildRpcServerArgv(base)).toEqual(['-H', '192.168.1.5', '-p', '8090', '-d', 'CPU']);
  });

  it('a GPU slot leaves the device to rpc-server (narrowed by the visibility environment); threads, cache, extra_args last', () => {
    expect(buildRpcServerArgv({ ...base, device: 'gpu-cuda', threads: 6, cache: true, extra: ['--threads', '8'] }))
      .toEqual(['-H', '192.168.1.5', '-p', '8090', '-t', '6', '-c', '--threads', '8']);
  });

  it('refuses -H and -p in extra_args: where it listens is the slot file\'s', () => {
    expect(() => buildRpcServerArgv({ ...base, extra: ['-H', '0.0.0.0'] })).toThrow(/may not set -H/);
    expect(() => buildRpcServerArgv({ ...base, extra: ['-p', '50052'] })).toThrow(/may not set -p/);
  });

  it('refuses the NPU: rpc-server has no such device', () => {
    expect(() => buildRpcServerArgv({ ...base, device: 'npu' })).toThrow(SlotError);
  });
});

describe('llama-rpc adapter', () => {
  it('runs rpc-server as a process on [rpc].host, reached at tcp://host:port; loads no model', async () => {
    const spec = await llamaRpcAdapter.launch(worker());
    expect(spec).toMatchObject({ mode: 'process', command: bin.path('rpc-server'), baseUrl: 'tcp://10.0.0.2:8090' });
    expect(spec.args).toEqual(['-H', '10.0.0.2', '-p', '8090', '-d', 'CPU']);
    expect(llamaRpcAdapter.loadsNoModel).toBe(true);
    expect(llamaRpcAdapter.serves).toEqual(['rpc-worker']);
  });

  it('takes the rpc-server beside the llama-server svc would run, before PATH; SVC_RPC_SERVER first of all', async () => {
    const beside = await llamaRpcAdapter.launch(worker({ env: { SVC_LLAMA_SERVER: bin.path('llama/bin/llama-server') } }));
    expect(beside.command).toBe(bin.path('llama/bin/rpc-server'));
    const named = await llamaRpcAdapter.launch(worker({ env: { SVC_LLAMA_SERVER: bin.path('llama/bin/llama-server'), SVC_RPC_SERVER: bin.path('rpc-server') } }));
    expect(named.command).toBe(bin.path('rpc-server'));
    await expect(llamaRpcAdapter.launch(worker({ env: { SVC_RPC_SERVER: '/nowhere/rpc-server' } }))).rejects.toMatchObject({ code: 'slot.binary_missing' });
    await expect(llamaRpcAdapter.launch(worker({ env: { PATH: '/nonexistent' } }))).rejects.toThrow(/rpc-server was not found.*build-llama-server\.sh/);
  });

  it('refuses a public address unless allow_public, naming the field', async () => {
    await expect(llamaRpcAdapter.launch(worker({ rpc: { host: '8.8.8.8' } }))).rejects.toMatchObject({ code: 'slot.config_error', details: { field: 'rpc.host' } });
    await expect(llamaRpcAdapter.launch(worker({ rpc: { host: '0.0.0.0' } }))).rejects.toThrow(/wildcard 0\.0\.0\.0/);
    const allowed = await llamaRpcAdapter.launch(worker({ rpc: { host: '0.0.0.0', allow_public: true } }));
    expect(allowed.baseUrl).toBe('tcp://127.0.0.1:8090');
  });

  it('keeps the tensor cache in the slot\'s state folder; gpu_index narrows the GPUs by environment', async () => {
    const spec = await llamaRpcAdapter.launch(worker({ slot: { device: 'gpu-cuda', gpu_index: 1 }, rpc: { cache: true } }));
    expect(spec.args).toContain('-c');
    expect(spec.env).toMatchObject({ LLAMA_CACHE: '/var/lib/svc/slots/lend/cache', CUDA_VISIBLE_DEVICES: '1' });
  });

  it('serves rpc-worker slots only', async () => {
    await expect(llamaRpcAdapter.launch(worker({ slot: { type: 'llm' } }))).rejects.toThrow(/llama-rpc does not serve llm slots/);
  });
});

describe('listening health', () => {
  it('reads LISTEN sockets from the kernel table', () => {
    const table = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0200000A:1F9A 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0',
      '   1: 0100007F:1F9B 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0 20 4 30 10 -1',
    ].join('\n');
    expect([...listeningPorts(table)]).toEqual([8090]);
  });

  it('is ready while a socket listens on the port, down once it is closed (no connection is made)', async () => {
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as { port: number };
    expect(await listeningHealth(`tcp://127.0.0.1:${port}`)).toBe('ready');
    await new Promise((done) => server.close(done));
    expect(await listeningHealth(`tcp://127.0.0.1:${port}`)).toBe('down');
  });
});
