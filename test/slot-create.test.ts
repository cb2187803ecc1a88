// `svc slot create` without --provider, as a new user runs it: the engine it picks (llama-server
// when one is found, else the built-in engine) and why, the warnings it gives for a slot that
// cannot start or asks for more context than the model has, and what a deleted slot leaves in
// /api/metrics (nothing).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runSvc, startGateway, type Gateway, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots, llamaServerPath, llamaServerSkipReason, tinyModel } from './helpers/llama.js';
import { freeSlotPort } from './helpers/ports.js';

const LLAMA_SERVER = llamaServerPath();
/** No llama-server anywhere: PATH without it, and no SVC_LLAMA_SERVER. */
const NO_LLAMA = { PATH: '/usr/bin:/bin' };

let home: TempHome;
let gw: Gateway;
const svc = (...args: string[]) => runSvc(args, { home: home.home, env: { SVC_API_URL: gw.url } });
/** `-p <port>` from this worker's block: the pool's 8081.. may be taken by another test file's engine. */
const port = async () => ['-p', String(await freeSlotPort())];

beforeAll(async () => {
  home = await homeWithTinySlots([]);
  gw = await startGateway(home.home, { env: NO_LLAMA });
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

describe('slot create without --provider, and no llama-server', () => {
  it('picks the built-in engine for an llm slot, says why, and warns of a context above the tiny model\'s native 32768', async () => {
    const created = svc('slot', 'create', 'chat', '--model', 'tiny', '--hardware', 'cpu', '--ctx-size', '65536', ...(await port()));
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toContain('provider builtin');
    expect(created.stdout).toMatch(/provider builtin: no llama-server binary was found/);
    expect(created.stdout).toContain('context 65536');
    expect(created.stderr).toMatch(/warning: context size 65536 is above the native context of tiny \(32768 tokens\)/);
  });

  it('the slot it made answers a chat request (no 500 slot.binary_missing)', async () => {
    const answer = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.choices[0].message.role).toBe('assistant');
  }, 60_000);

  it('embedding and reranking slots get the built-in engine too; no warning at the native size', async () => {
    const created = svc('slot', 'create', 'embed', '--type', 'embedding', '--model', 'tiny', '--hardware', 'cpu', '--ctx-size', '2048', ...(await port()));
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toContain('provider builtin');
    expect(created.stderr).toBe('');
  });

  it('warns when the model file is missing, and still creates the slot', async () => {
    const gone = await tinyModel(join(home.home, 'models'), 'gone.gguf');
    expect((await api(gw.url, '/api/models', { method: 'POST', body: { id: 'gone', path: gone } })).status).toBe(201);
    rmSync(gone);
    const created = await api(gw.url, '/api/slots', { method: 'POST', body: { name: 'ghost', model: 'gone', device: 'cpu', ctx_size: 512, port: await freeSlotPort() } });
    expect(created.status).toBe(201);
    expect(created.json.provider).toBe('builtin');
    expect(created.json.warnings).toEqual([expect.stringMatching(/^it cannot start as configured \(slot\.model_missing\): .*gone\.gguf/)]);
  });

  it('a tts slot prints no context size and writes none', async () => {
    const created = svc('slot', 'create', 'voice', '--type', 'tts', '--model', 'kokoro', '--hardware', 'cpu', ...(await port()));
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toContain('provider kokoro');
    expect(created.stdout).not.toMatch(/context/);
    const shown = (await api(gw.url, '/api/slots/voice')).json;
    expect(shown.config.model.context_size).toBeNull();
    // No kokoro command is configured here: that is said at create time, not at the first request.
    expect(created.stderr).toMatch(/warning: it cannot start as configured \(slot\.binary_missing\)/);
  });

  it('--hardware cuda makes a gpu-cuda slot, as the API\'s device does', async () => {
    const created = svc('slot', 'create', 'nvidia', '--model', 'tiny', '--hardware', 'cuda', '--ctx-size', '512', ...(await port()));
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toContain('device gpu-cuda');
    expect((await api(gw.url, '/api/slots/nvidia')).json.device).toBe('gpu-cuda');
  });
});

describe.skipIf(!LLAMA_SERVER)('slot create without --provider, with llama-server found', () => {
  it(`picks llama-server and names where it was found${LLAMA_SERVER ? '' : ` (${llamaServerSkipReason()})`}`, async () => {
    const other = await homeWithTinySlots([]);
    const g = await startGateway(other.home, { env: { ...NO_LLAMA, SVC_LLAMA_SERVER: LLAMA_SERVER! } });
    try {
      const created = runSvc(['slot', 'create', 'big', '--model', 'tiny', '--hardware', 'cpu', '--ctx-size', '1024', ...(await port())], { home: other.home, env: { SVC_API_URL: g.url } });
      expect(created.status, created.stderr).toBe(0);
      expect(created.stdout).toContain('provider llama-server');
      expect(created.stdout).toContain(`provider llama-server: llama-server found at ${LLAMA_SERVER} (from SVC_LLAMA_SERVER)`);
      expect(created.stderr).toBe('');
    } finally {
      await g.stop();
    }
  });
});

describe('a deleted slot leaves /api/metrics', () => {
  it('its series are gone from the scrape once the slot is deleted', async () => {
    const scrape = async () => (await api(gw.url, '/api/metrics')).text;
    expect(await scrape()).toContain('svc_slot_requests_total{slot="chat",outcome="ok"} 1');
    expect(await scrape()).toMatch(/svc_slot_request_duration_seconds_count\{slot="chat"\} 1/);
    const deleted = await api(gw.url, '/api/slots/chat?force=true', { method: 'DELETE' });
    expect(deleted.status, deleted.text).toBe(200);
    const after = await scrape();
    expect(after).not.toContain('slot="chat"');
    expect(after).toContain('slot="embed"'); // the others stay
  }, 60_000);
});
