// One model over several hosts with llama.cpp's RPC backend (docs/scaling.md): an rpc-server
// in each of two network namespaces, each run by a gateway there as a llama-rpc slot bound
// to that namespace's private address, and a llama-server slot here whose rpc_workers name
// both, so the tiny model's layers are computed on the two "hosts". Then one worker goes
// away: the slot's next start fails naming it, before any llama-server runs.
//
// Needs root and iproute2 (network namespaces) and llama-server with rpc-server beside it
// (scripts/build-llama-server.sh); skipped without them, saying why, failed under CI=true.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startGateway, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';
import { lanSkipReason } from './helpers/lan.js';
import { homeWithTinySlots, llamaServerPath, llamaServerSkipReason, rpcServerPath } from './helpers/llama.js';
import { openNetnsHost, startGatewayIn, type NetnsHost } from './helpers/netns-rpc.js';
import { freeSlotPort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

const netns = lanSkipReason();
const llama = llamaServerPath();
const rpc = rpcServerPath();
const skip = netns ?? (!llama || !rpc ? llamaServerSkipReason() : undefined);

interface Worker {
  host: NetnsHost;
  home: TempHome;
  gateway: Gateway;
  endpoint: string;
}

/** A gateway in its own namespace running one llama-rpc slot on the namespace's address. */
async function startWorker(): Promise<Worker> {
  const host = openNetnsHost();
  const port = await freeSlotPort();
  const home = tempHome({
    'slots/lend.toml': `[slot]\nname = "lend"\nport = ${port}\ntype = "rpc-worker"\nprovider = "llama-rpc"\ndevice = "cpu"\n\n[rpc]\nhost = "${host.address}"\nthreads = 1\n`,
  });
  const gateway = await startGatewayIn(host, home.home, { SVC_RPC_SERVER: rpc! });
  const worker = { host, home, gateway, endpoint: `${host.address}:${port}` };
  // Enabled slots start with the gateway; its state file says when the rpc-server listens.
  await waitFor(() => slotState(home, 'lend'), { what: `the worker in ${host.ns} to be ready`, until: (s) => s?.state === 'ready', timeout: 60_000 });
  return worker;
}

async function slotState(home: TempHome, name: string): Promise<{ state: string; message: string | null } | undefined> {
  return JSON.parse(await readFile(join(home.stateRoot, 'slots', name, 'state.json'), 'utf8')) as { state: string; message: string | null };
}

describe.skipIf(skip)(`one model over two llama.cpp RPC workers ${skip ?? ''}`, () => {
  const workers: Worker[] = [];
  let main: TempHome;
  let gateway: Gateway;

  beforeAll(async () => {
    workers.push(await startWorker(), await startWorker());
    main = await homeWithTinySlots([{ name: 'big', extra: `rpc_workers = [${workers.map((w) => `"${w.endpoint}"`).join(', ')}]\n[server]\n# llama.cpp logs each device's buffers at verbosity 4 only\nextra_args = "-lv 4"` }]);
    gateway = await startGateway(main.home, { env: { SVC_LLAMA_SERVER: llama! } });
  }, 150_000);

  afterAll(async () => {
    await gateway?.stop();
    for (const worker of workers) {
      await worker.gateway.stop();
      worker.host.close();
    }
  });

  it('answers a chat through the gateway with the layers on both workers', async () => {
    // ignore_eos: the tiny model's first greedy token may be its end of text; 8 tokens are computed on the workers.
    const answer = await api(gateway.url, '/v1/chat/completions', { method: 'POST', body: { model: 'big', messages: [{ role: 'user', content: 'hello' }], max_tokens: 8, ignore_eos: true } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.choices[0].message.content).toBeTypeOf('string');
    expect(answer.json.usage.completion_tokens).toBe(8);
    // llama.cpp names each worker's buffer "RPC<n>[host:port]": the weights went to both.
    const log = await readFile(join(main.stateRoot, 'slots/big/engine.log'), 'utf8');
    for (const { endpoint } of workers) expect(log).toMatch(new RegExp(`RPC\\d+\\[${endpoint.replace(/\./g, '\\.')}\\] model buffer size`));
    const slot = (await api(gateway.url, '/api/slots/big')).json;
    expect(slot.state).toBe('ready');
  }, 120_000);

  it('a worker down: the start fails naming it (slot.rpc_worker_unreachable), with a slot error event, and no llama-server ran', async () => {
    expect((await api(gateway.url, '/api/slots/big/unload', { method: 'POST' })).status).toBe(200);
    const [up, down] = workers as [Worker, Worker];
    expect(await down.gateway.stop()).toBe(0); // its rpc-server stops with it
    const load = await api(gateway.url, '/api/slots/big/load', { method: 'POST' });
    expect(load.status, load.text).toBe(503);
    expect(load.json.error).toMatchObject({ code: 'slot.rpc_worker_unreachable', details: { worker: down.endpoint, unreachable: [{ worker: down.endpoint }] } });
    expect(load.json.error.message).toContain(`RPC worker ${down.endpoint} does not accept a TCP connection`);
    expect(load.json.error.message).not.toContain(up.endpoint);

    const slot = (await api(gateway.url, '/api/slots/big')).json;
    expect(slot.state).toBe('error');
    expect(slot.last_error).toMatchObject({ code: 'slot.rpc_worker_unreachable' });
    const events = (await api(gateway.url, '/api/events?type=slot.state')).json.events as Array<{ data: { slot: string; to: string; details?: { code?: string } } }>;
    const failed = events.filter((e) => e.data.slot === 'big' && e.data.to === 'error');
    expect(failed.at(-1)?.data.details?.code).toBe('slot.rpc_worker_unreachable');
    // The check runs before the engine: the last start has no engine pid.
    expect(slot.pid ?? null).toBeNull();
  }, 60_000);
});
