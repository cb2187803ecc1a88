// Routing choices through the real gateway (docs/routing.md): a slot whose start fails
// loses to a twin serving the same model that can start.
import { afterEach, describe, expect, it } from 'vitest';
import { api, useTempGateways } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';

const { gateway } = useTempGateways(afterEach);

describe('two slots serving one model, one of which cannot start', () => {
  it('after its start failed (no llama-server binary), requests for the model go to the twin on the built-in engine', async () => {
    // "a-broken" sorts first, so it is the first choice while both are stopped.
    const home = await homeWithTinySlots([{ name: 'a-broken' }, { name: 'b-works', provider: 'builtin' }]);
    const gw = await gateway(home, { env: { PATH: '/usr/bin:/bin' } }); // no llama-server anywhere
    const chat = () => api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'tiny', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 } });
    const first = await chat();
    expect(first.status).toBe(500);
    expect(first.json.error.code).toBe('slot.binary_missing');
    const a = (await api(gw.url, '/api/slots/a-broken')).json;
    expect([a.state, a.last_error]).toEqual(['stopped', null]); // nothing in its view says it failed
    for (let i = 0; i < 2; i++) {
      const answer = await chat();
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json.object).toBe('chat.completion');
    }
    expect((await api(gw.url, '/api/slots/b-works')).json.state).toBe('ready');
    expect((await api(gw.url, '/api/slots/a-broken')).json.state).toBe('stopped');
    // Named by its own name, the broken slot is still what the client gets.
    expect((await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'a-broken', messages: [] } })).json.error.code).toBe('slot.binary_missing');
  }, 60_000);
});
