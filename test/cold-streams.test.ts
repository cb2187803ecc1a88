// Identical streams on a cold slot share one engine request (docs/routing.md, "On-demand loading and streaming"), with the
// memory bound of src/dispatch/flight.ts: two clients on a cold fault-engine slot, one
// reading as fast as it can, one reading nothing until the other is done. The fast one gets
// every byte. Whether the idle one is dropped is fixed by the stream's size, never by
// timing: a stream under the bound always fits, so the idle one gets the same bytes; one of
// 20 MB does not fit in the bound plus every buffer on the way (the gateway's socket, up to
// the kernel's 4 MiB; the idle client's, which the kernel grows only as the client reads;
// node:http's own, which stops reading its socket once full), so the idle one gets a prefix
// and one dispatch.client_too_slow error event.
import { request, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { FLIGHT_BOUND_BYTES } from '../src/dispatch/flight.js';
import { homeWithFaultSlots } from './helpers/faults.js';
import { api, useTempGateways, type Gateway } from './helpers/gateway.js';

const { gateway } = useTempGateways(afterEach);

/** The body without the keep-alive comments each client got on its own. */
const withoutComments = (text: string) => text.split('\n\n').filter((part) => !part.startsWith(': svc:')).join('\n\n');

/** Each streamed chunk's content: 8 KiB. */
const PAD = 8192;

/** A streamed chat request whose response is handed back unread: node:http then reads its socket only until its own small buffer is full. */
function askUnread(url: string, body: string): Promise<IncomingMessage> {
  return new Promise((answered, fail) => {
    const target = new URL('/v1/chat/completions', url);
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json' } }, answered);
    req.on('error', fail);
    req.end(body);
  });
}

async function readAll(response: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of response) text += (chunk as Buffer).toString();
  return text;
}

/** Two identical streamed requests at once on a cold slot; the fast one is read to its end before the idle one is read at all. */
async function shareColdStream(gw: Gateway, chunks: number): Promise<{ fast: string; idle: string }> {
  const body = JSON.stringify({ model: 'wide', messages: [{ role: 'user', content: 'same' }], max_tokens: chunks, stream: true });
  const [fastResponse, idleResponse] = await Promise.all([
    fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
    askUnread(gw.url, body),
  ]);
  const fast = await fastResponse.text();
  expect(fast.endsWith('data: [DONE]\n\n')).toBe(true);
  const events = withoutComments(fast).split('\n\n').filter((e) => e.startsWith('data: {'));
  expect(events.filter((e) => e.includes('"content":"x')).length).toBe(chunks);
  return { fast: withoutComments(fast), idle: withoutComments(await readAll(idleResponse)) };
}

/** The cold slot's engine saw one request for both clients, and it is over. */
async function expectOneEngineRequest(gw: Gateway): Promise<void> {
  const lines = (await api(gw.url, '/api/slots/wide/logs?lines=200')).json.lines as string[];
  expect(lines.filter((l) => l.includes('fault-engine: chat request'))).toHaveLength(1);
  expect((await api(gw.url, '/api/slots/wide')).json.in_flight).toBe(0);
}

async function coldSlot(): Promise<Gateway> {
  const home = await homeWithFaultSlots([{ name: 'wide', knobs: `--load-ms 1500 --chunk-ms 1 --pad ${PAD} --log-requests` }]);
  return gateway(home, { env: home.env });
}

describe('two clients sharing a cold stream, one of them reading nothing until the other is done', () => {
  it('a stream under the bound: the idle one gets the same bytes as the fast one', async () => {
    const gw = await coldSlot();
    const chunks = Math.floor(FLIGHT_BOUND_BYTES / PAD / 2); // half the bound in content alone
    const { fast, idle } = await shareColdStream(gw, chunks);
    expect(idle).toBe(fast);
    await expectOneEngineRequest(gw);
  }, 90_000);

  it('a stream far over the bound and the buffers: the idle one gets a prefix, then one client_too_slow event and the end', async () => {
    const gw = await coldSlot();
    const { fast, idle } = await shareColdStream(gw, 2500);
    const cut = idle.indexOf('data: {"error"');
    expect(cut, idle.slice(-300)).toBeGreaterThanOrEqual(0);
    expect(fast.startsWith(idle.slice(0, cut).replace(/\n+$/, ''))).toBe(true);
    expect(idle.endsWith('}\n\n')).toBe(true);
    const error = JSON.parse(idle.slice(cut + 'data: '.length)) as { error: { code: string; details: Record<string, unknown> } };
    expect(error.error).toMatchObject({ code: 'dispatch.client_too_slow', details: { slot: 'wide', bound_bytes: FLIGHT_BOUND_BYTES } });
    expect(idle).not.toContain('data: [DONE]');
    await expectOneEngineRequest(gw);
  }, 90_000);
});
