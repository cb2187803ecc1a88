// Identical streams on a cold slot share one engine request (SPEC.md, Streaming), with the
// memory bound of src/dispatch/single-flight.ts: two clients on a cold fault-engine slot,
// one reading fast, one pausing until the other is done. The fast one gets every byte; the
// slow one gets the same bytes, or (when it fell more than the bound behind) a prefix of
// them and one dispatch.client_too_slow error event.
import { afterEach, describe, expect, it } from 'vitest';
import { homeWithFaultSlots } from './helpers/faults.js';
import { api, useTempGateways } from './helpers/gateway.js';

const { gateway } = useTempGateways(afterEach);

/** The body without the keep-alive comments each client got on its own. */
const withoutComments = (text: string) => text.split('\n\n').filter((part) => !part.startsWith(': svc:')).join('\n\n');

describe('two clients sharing a cold stream, one of them slow', () => {
  it('the fast one gets every byte; the slow one the same bytes, or a prefix and one client_too_slow event', async () => {
    // 2500 chunks of 8 KiB (20 MB): more than the bound plus what the sockets can buffer.
    const home = await homeWithFaultSlots([{ name: 'wide', knobs: '--load-ms 1500 --chunk-ms 1 --pad 8192 --log-requests' }]);
    const gw = await gateway(home, { env: home.env });
    const body = JSON.stringify({ model: 'wide', messages: [{ role: 'user', content: 'same' }], max_tokens: 2500, stream: true });
    const ask = () => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const [fastResponse, slowResponse] = await Promise.all([ask(), ask()]);
    const slowReader = slowResponse.body!.getReader();
    const decoder = new TextDecoder();
    let slowText = decoder.decode((await slowReader.read()).value, { stream: true });

    const fastText = await fastResponse.text();
    expect(fastText.endsWith('data: [DONE]\n\n')).toBe(true);
    const events = withoutComments(fastText).split('\n\n').filter((e) => e.startsWith('data: {'));
    expect(events.filter((e) => e.includes('"content":"x')).length).toBe(2500);

    // Now the slow one reads the rest.
    for (let next = await slowReader.read(); !next.done; next = await slowReader.read()) slowText += decoder.decode(next.value, { stream: true });
    const slow = withoutComments(slowText);
    const fast = withoutComments(fastText);
    if (slow !== fast) {
      // Dropped: what it got is a prefix of the stream, then one error event and the end.
      const cut = slow.indexOf('data: {"error"');
      expect(cut).toBeGreaterThanOrEqual(0);
      expect(fast.startsWith(slow.slice(0, cut).replace(/\n+$/, ''))).toBe(true);
      expect(slow.endsWith('}\n\n')).toBe(true);
      const error = JSON.parse(slow.slice(cut + 'data: '.length)) as { error: { code: string; details: Record<string, unknown> } };
      expect(error.error).toMatchObject({ code: 'dispatch.client_too_slow', details: { slot: 'wide', bound_bytes: 1024 * 1024 } });
      expect(slow).not.toContain('data: [DONE]');
    }
    // One engine request for both, and it is over.
    const lines = (await api(gw.url, '/api/slots/wide/logs?lines=200')).json.lines as string[];
    expect(lines.filter((l) => l.includes('fault-engine: chat request'))).toHaveLength(1);
    expect((await api(gw.url, '/api/slots/wide')).json.in_flight).toBe(0);
  }, 90_000);
});
