// A vLLM fleet behind svc (docs/scaling.md): two vLLM-like upstreams (test/fixtures/vllm-like.mjs,
// the real /health, /v1/models and Prometheus /metrics formats) serving the same model are one
// replica set; the one whose running + waiting requests are fewer is chosen, and the choice is
// in X-Svc-Target and the activity row.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, REPO_ROOT, startGateway, tempHome, type Gateway } from './helpers/gateway.js';
import { freePort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

const fixtures: ChildProcess[] = [];
let gateway: Gateway;

async function vllm(name: string, running: number, waiting: number): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(REPO_ROOT, 'test/fixtures/vllm-like.mjs'), '--port', String(port), '--name', name, '--model', 'org/m', '--running', String(running), '--waiting', String(waiting)], { stdio: ['ignore', 'ignore', 'pipe'] });
  fixtures.push(child);
  await new Promise<void>((done) => child.stderr!.once('data', () => done()));
  return port;
}

beforeAll(async () => {
  const [busy, light] = [await vllm('busy', 4, 3), await vllm('light', 1, 1)];
  const home = tempHome({
    'upstreams.toml': `[upstreams.busy]\nbase_url = "http://127.0.0.1:${busy}/v1"\nkind = "vllm"\n\n[upstreams.light]\nbase_url = "http://127.0.0.1:${light}/v1"\nkind = "vllm"\n`,
    'peers.toml': '[health]\ninterval_s = 0.5\n',
  });
  gateway = await startGateway(home.home);
}, 30_000);
afterAll(async () => {
  await gateway?.stop();
  for (const child of fixtures) child.kill();
});

describe('vLLM upstreams as a replica set', () => {
  it('reads each one\'s load from /metrics and sends the request to the least loaded', async () => {
    const peers = await waitFor(async () => (await api(gateway.url, '/api/peers')).json.peers, { what: 'both upstreams checked', // eslint-disable-next-line @typescript-eslint/no-explicit-any
      until: (p: any[]) => p.length === 2 && p.every((x) => x.state === 'up') });
    expect(peers.map((p: { target: string; kind: string; load: { in_flight: number } }) => [p.target, p.kind, p.load.in_flight])).toEqual([['upstream:busy', 'vllm', 7], ['upstream:light', 'vllm', 2]]);
    const answer = await api(gateway.url, '/v1/chat/completions', { method: 'POST', body: { model: 'org/m', messages: [{ role: 'user', content: 'hi' }] } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('x-svc-target')).toBe('upstream:light');
    expect(answer.json.choices[0].message.content).toBe('from light');
    const rows = (await api(gateway.url, '/api/activity?action=dispatch.replica')).json.items;
    expect(rows[0]).toMatchObject({ target: 'upstream:light', outcome: 'ok', details: { model: 'org/m', replicas: ['upstream:busy', 'upstream:light'] } });
  });
});
