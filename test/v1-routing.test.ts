// Routing choices through the real gateway (docs/routing.md): a slot whose start fails
// loses to a twin serving the same model that can start; a slot's [slot].enable_thinking
// reaches its engine as chat_template_kwargs.enable_thinking unless the request sets it.
import { afterEach, describe, expect, it } from 'vitest';
import { homeWithFaultSlots } from './helpers/faults.js';
import { api, useTempGateways, type Gateway } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

const { gateway } = useTempGateways(afterEach);

describe('two slots serving one model, one of which cannot start', () => {
  it('the first request finds the broken one cannot start (no llama-server binary) and is answered by the twin on the built-in engine; so are the next', async () => {
    // "a-broken" sorts first, so it is the first choice while both are stopped.
    const home = await homeWithTinySlots([{ name: 'a-broken' }, { name: 'b-works', provider: 'builtin' }]);
    // Not at boot: a boot start would find a-broken broken before any request does.
    home.write('svc.toml', '[slots]\nstart_at_boot = false\n');
    const gw = await gateway(home, { env: { PATH: '/usr/bin:/bin' } }); // no llama-server anywhere
    const chat = () => api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'tiny', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 } });
    for (let i = 0; i < 3; i++) {
      const answer = await chat();
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json.object).toBe('chat.completion');
    }
    expect((await api(gw.url, '/api/slots/b-works')).json.state).toBe('ready');
    expect((await api(gw.url, '/api/slots/a-broken')).json.state).toBe('stopped');
    // The broken one was tried once, by the first request: one failed start in its metrics.
    expect((await api(gw.url, '/api/status')).json.slots.slots.find((s: { name: string }) => s.name === 'a-broken').metrics.requests).toEqual({ ok: 0, error: 1, cancelled: 0 });
    // Named by its own name, the broken slot is still what the client gets.
    expect((await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'a-broken', messages: [] } })).json.error.code).toBe('slot.binary_missing');
  }, 60_000);
});

describe('two slots serving one model, one broken, started with the gateway', () => {
  it('the boot start finds the broken one (last_error in its view) and every request goes to the twin', async () => {
    const home = await homeWithTinySlots([{ name: 'a-broken' }, { name: 'b-works', provider: 'builtin' }]);
    home.write('svc.toml', '[slots]\nevict_pressure_mb = 0\n'); // not the host's free memory
    const gw = await gateway(home, { env: { PATH: '/usr/bin:/bin' } });
    const view = async (name: string) => (await api(gw.url, `/api/slots/${name}`)).json;
    await waitFor(() => view('b-works'), { what: 'b-works to start with the gateway', until: (v) => v.state === 'ready', timeout: 60_000 });
    expect(await view('a-broken')).toMatchObject({ state: 'stopped', last_error: { code: 'slot.binary_missing' } });
    const answer = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'tiny', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 } });
    expect(answer.status, answer.text).toBe(200);
    // No request was sent to a-broken: its start failed at boot, not under a request.
    expect((await api(gw.url, '/api/status')).json.slots.slots.find((s: { name: string }) => s.name === 'a-broken').metrics.requests).toEqual({ ok: 0, error: 0, cancelled: 0 });
  }, 60_000);
});

describe('[slot].enable_thinking', () => {
  /** What the engine received: the bodies the fault engine logged, newest last. */
  const received = async (gw: Gateway, slot: string) =>
    ((await api(gw.url, `/api/slots/${slot}/logs?lines=200`)).json.lines as string[])
      .filter((l) => l.startsWith('fault-engine: chat request '))
      .map((l) => JSON.parse(l.slice('fault-engine: chat request '.length)) as Record<string, unknown>);

  it('is sent as chat_template_kwargs.enable_thinking when the request does not set it; the request\'s own value wins', async () => {
    const home = await homeWithFaultSlots([
      { name: 'quiet', knobs: '--log-requests', extra: 'enable_thinking = false' },
      { name: 'plain', knobs: '--log-requests' },
    ]);
    const gw = await gateway(home, { env: home.env });
    const chat = async (model: string, extra: Record<string, unknown> = {}) => {
      const answer = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, ...extra } });
      expect(answer.status, answer.text).toBe(200);
    };
    await chat('quiet');
    await chat('quiet', { chat_template_kwargs: { enable_thinking: true, other: 'kept' } });
    await chat('quiet', { enable_thinking: true, stream: true });
    await chat('plain');
    const quiet = await received(gw, 'quiet');
    expect(quiet.map((b) => b.chat_template_kwargs)).toEqual([{ enable_thinking: false }, { enable_thinking: true, other: 'kept' }, { enable_thinking: true }]);
    expect(quiet[0]).toMatchObject({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
    // A slot with enable_thinking unset (null) gets nothing added.
    expect((await received(gw, 'plain'))[0]).not.toHaveProperty('chat_template_kwargs');
  }, 60_000);
});
