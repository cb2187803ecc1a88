// A Hugging Face endpoint the gateway cannot reach (a closed port standing in for a host with
// no route to huggingface.co): `svc model pull` fails naming the endpoint it tried, how to set
// another for the gateway (SVC_HF_ENDPOINT / HF_ENDPOINT) and `svc model register --path`; a
// search fails as a search (model.search_failed), not as a pull; the failed job is dismissed
// with DELETE /api/models/pulls/<job>, an event says so, and a running one cannot be.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, runSvcAsync, useTempGateways, type Gateway, type TempHome } from './helpers/gateway.js';
import { freePort } from './helpers/ports.js';

const { home: newHome, gateway: newGateway } = useTempGateways(afterEach);
let endpoint: string;

beforeAll(async () => {
  endpoint = `http://127.0.0.1:${await freePort()}`;
});

async function unreachableGateway(): Promise<{ home: TempHome; gw: Gateway }> {
  const home = newHome();
  return { home, gw: await newGateway(home, { env: { SVC_HF_ENDPOINT: endpoint } }) };
}

describe('an endpoint the gateway cannot reach', () => {
  it('svc model pull names the endpoint, SVC_HF_ENDPOINT for the gateway, and svc model register --path', async () => {
    const { home } = await unreachableGateway();
    const result = await runSvcAsync(['model', 'pull', 'org/tiny-GGUF:Q8_0'], { home: home.home });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`svc: model.pull_failed: cannot reach the Hugging Face endpoint ${endpoint} (`);
    expect(result.stderr).toContain("setting SVC_HF_ENDPOINT (or HF_ENDPOINT) to a mirror in the gateway's environment");
    expect(result.stderr).toContain('svc model register <id> --path /path/to/model.gguf');
  }, 60_000);

  it('a search is model.search_failed with the same fix, and leaves no pull job', async () => {
    const { gw } = await unreachableGateway();
    const search = await api(gw.url, '/api/models/search?q=qwen');
    expect(search.status).toBe(502);
    expect(search.json.error.code).toBe('model.search_failed');
    expect(search.json.error.message).toContain(`searching for "qwen" failed: cannot reach the Hugging Face endpoint ${endpoint}`);
    expect(search.json.error.message).toContain('SVC_HF_ENDPOINT');
    expect(search.json.error.details).toMatchObject({ endpoint, cause: 'model.pull_failed' });
    expect((await api(gw.url, '/api/models/pulls')).json.pulls).toEqual([]);
  });

  it('DELETE /api/models/pulls/<job> dismisses the failed job, with an event; an unknown job is 404', async () => {
    const { gw } = await unreachableGateway();
    const started = await api(gw.url, '/api/models/tiny/pull', { method: 'POST', body: { ref: 'org/tiny-GGUF:Q8_0' } });
    expect(started.status).toBe(202);
    const job = started.json.id as string;
    // The job fails on its own (the endpoint does not answer); its stream ends with the final state.
    const stream = await fetch(`${gw.url}/api/models/tiny/pull/stream`);
    expect(await stream.text()).toContain('"state":"failed"');
    const dismissed = await api(gw.url, `/api/models/pulls/${job}`, { method: 'DELETE' });
    expect(dismissed.status, dismissed.text).toBe(200);
    expect(dismissed.json.dismissed).toMatchObject({ id: job, model_id: 'tiny', state: 'failed' });
    expect((await api(gw.url, '/api/models/pulls')).json.pulls).toEqual([]);
    const events = (await api(gw.url, '/api/events?type=pull.dismissed')).json.events as Array<{ data: Record<string, unknown> }>;
    expect(events.map((e) => e.data)).toEqual([expect.objectContaining({ model_id: 'tiny', job, state: 'failed', discard: false })]);
    const again = await api(gw.url, `/api/models/pulls/${job}`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(again.json.error.code).toBe('model.pull_no_job');
  }, 60_000);
});
