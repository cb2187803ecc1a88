// Three gateways on three hosts (network namespaces of the test's own, test/helpers/netns-hosts.ts),
// B and C each with the built-in engine on the tiny model, A in front with B and C as peers
// (docs/scaling.md). A replica with the model loaded is chosen before one that must load it;
// requests spread by in flight; B and C list each other and never loop; a peer SIGKILLed
// mid-load: requests not yet streaming are retried on the other, a stream already started
// ends with one SSE error event, B's breaker opens and closes again when B is back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { type HostGateway, type NetnsHosts, netnsSkipReason, openNetnsHosts, startGatewayOn } from './helpers/netns-hosts.js';
import { tempHome } from './helpers/gateway.js';
import { waitFor } from './helpers/wait.js';

const skip = netnsSkipReason();
const PORT = 8080;
let net: NetnsHosts;
let homes: { a: TempHome; b: TempHome; c: TempHome };
const gw: Record<'a' | 'b' | 'c', HostGateway | undefined> = { a: undefined, b: undefined, c: undefined };
const urlOf = (k: 0 | 1 | 2) => `http://${net.hosts[k]!.address}:${PORT}`;
const health = '[health]\ninterval_s = 0.3\ntimeout_s = 2\nbreaker_failures = 3\nbreaker_backoff_s = 0.3\nbreaker_backoff_max_s = 1\n';
const chat = (base: string, extra: Record<string, unknown> = {}) => fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4, ...extra }) });
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const peersOf = async (base: string): Promise<any[]> => (await api(base, '/api/peers/refresh', { method: 'POST' })).json.peers;
const peer = async (base: string, target: string) => (await peersOf(base)).find((p) => p.target === target);
const start = async (k: 'a' | 'b' | 'c') => (gw[k] = await startGatewayOn(net.hosts[{ a: 0, b: 1, c: 2 }[k]]!, homes[k].home, PORT));
const enginePid = async (base: string) => (await api(base, '/api/slots/chat')).json.pid as number;

beforeAll(async () => {
  if (skip) return;
  net = openNetnsHosts(3);
  const [b, c] = [urlOf(1), urlOf(2)];
  const peers = (list: Record<string, string>) => Object.entries(list).map(([n, u]) => `[peers.${n}]\nurl = "${u}"\n`).join('\n') + health;
  homes = { a: tempHome({ 'peers.toml': peers({ b, c }) }), b: await homeWithTinySlots([{ name: 'chat', provider: 'builtin' }]), c: await homeWithTinySlots([{ name: 'chat', provider: 'builtin' }]) };
  // B and C list each other: a request one forwards to the other must stay there.
  homes.b.write('peers.toml', peers({ c }));
  homes.c.write('peers.toml', peers({ b }));
  await Promise.all([start('a'), start('b'), start('c')]);
}, 60_000);
afterAll(async () => {
  // SIGTERM, not SIGKILL: a killed gateway leaves its engines running for the next one to
  // re-adopt (docs/cli.md), and nothing here would stop them.
  await Promise.all(Object.values(gw).map((g) => g?.stop()));
  net?.close();
});

describe.skipIf(skip)(`peers on three hosts ${skip ?? ''}`, () => {
  it('chooses the peer with the model loaded over the one that must load it', async () => {
    expect((await chat(urlOf(2))).status).toBe(200); // C loads it
    // B started its slot at boot: it is unloaded, so only C has the model loaded.
    expect((await api(urlOf(1), '/api/slots/chat/unload', { method: 'POST' })).status).toBeLessThan(300);
    await waitFor(async () => (await api(urlOf(1), '/api/slots/chat')).json.state, { what: 'B stopped', until: (s) => s === 'stopped' });
    await waitFor(() => peer(urlOf(0), 'peer:c'), { what: 'A to see tiny loaded on C', until: (p) => p?.load?.loaded.includes('tiny') });
    await waitFor(() => peer(urlOf(0), 'peer:b'), { what: 'A to see B unloaded', until: (p) => p?.load?.loaded.length === 0 });
    const answer = await chat(urlOf(0));
    expect(answer.status, await answer.clone().text()).toBe(200);
    expect(answer.headers.get('x-svc-target')).toBe('peer:c');
    expect(((await answer.json()) as { model: string }).model).toBe('tiny');
  }, 60_000);

  it('spreads requests by in flight over two loaded peers', async () => {
    expect((await api(urlOf(1), '/api/slots/chat/load', { method: 'POST' })).status).toBeLessThan(300); // B loads it too
    await waitFor(() => peer(urlOf(0), 'peer:b'), { what: 'A to see tiny loaded on B', until: (p) => p?.load?.loaded.includes('tiny') });
    // Both engines paused: each request stays in flight until they go on.
    const pids = [await enginePid(urlOf(1)), await enginePid(urlOf(2))];
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    const sent: Promise<Response>[] = [];
    try {
      for (let i = 1; i <= 4; i++) {
        sent.push(chat(urlOf(0)));
        await waitFor(async () => (await api(urlOf(0), '/api/peers')).json.peers, { what: `${i} requests in flight`, until: (p: Array<{ in_flight_here: number }>) => p.reduce((s, x) => s + x.in_flight_here, 0) === i });
      }
      const inFlight = (await api(urlOf(0), '/api/peers')).json.peers.map((p: { target: string; in_flight_here: number }) => [p.target, p.in_flight_here]);
      expect(inFlight).toEqual([['peer:b', 2], ['peer:c', 2]]);
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    }
    const answers = await Promise.all(sent);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((r) => r.headers.get('x-svc-target')).sort()).toEqual(['peer:b', 'peer:b', 'peer:c', 'peer:c']);
  }, 60_000);

  it('two gateways that list each other answer without a loop', async () => {
    const before = (await api(urlOf(2), '/api/activity?action=dispatch.replica')).json.items.length;
    const targets: string[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await chat(urlOf(1));
      expect(answer.status).toBe(200);
      targets.push(answer.headers.get('x-svc-target')!);
    }
    expect(targets.every((t) => t === 'slot:chat' || t === 'peer:c')).toBe(true);
    // C answered what B sent it locally: it chose no replica for a request that came from a peer.
    const rows = (await api(urlOf(2), '/api/activity?action=dispatch.replica')).json.items;
    expect(rows).toHaveLength(before);
  }, 60_000);

  it('a peer killed mid-load: waiting requests go to the other, a started stream ends with one error event, the breaker opens and closes', async () => {
    await gw.c!.stop();
    await waitFor(() => peer(urlOf(0), 'peer:c'), { what: 'A to see C down', until: (p) => p?.state === 'down' });
    expect((await api(urlOf(1), '/api/slots/chat/unload', { method: 'POST' })).status).toBeLessThan(300);
    await waitFor(async () => (await api(urlOf(1), '/api/slots/chat')).json.state, { what: 'B stopped', until: (s) => s === 'stopped' });
    const plain = [chat(urlOf(0)), chat(urlOf(0))];
    const stream = chat(urlOf(0), { stream: true });
    // Freeze B's engine while it loads, so the requests are held there.
    const pid = await waitFor(async () => (await api(urlOf(1), '/api/slots/chat')).json, { what: 'B loading', until: (v) => v.state === 'starting' && typeof v.pid === 'number' });
    process.kill(pid.pid, 'SIGSTOP');
    await start('c');
    await waitFor(() => peer(urlOf(0), 'peer:c'), { what: 'A to see C up with its breaker closed', until: (p) => p?.state === 'up' && p.breaker.state === 'closed' });
    await gw.b!.kill();
    process.kill(pid.pid, 'SIGKILL');
    for (const answer of await Promise.all(plain)) {
      expect(answer.status, await answer.clone().text()).toBe(200);
      expect(answer.headers.get('x-svc-target')).toBe('peer:c');
    }
    const streamed = await stream;
    const target = streamed.headers.get('x-svc-target');
    const events = (await streamed.text()).split('\n\n').filter((e) => e.startsWith('data: '));
    if (target === 'peer:b') {
      // B had sent its first byte (the loading comment) before it died: the stream was the
      // client's already, so it ends with one SSE error event and is never retried.
      expect(events).toHaveLength(1);
      expect(JSON.parse(events[0]!.slice(6)).error.code).toBe('dispatch.upstream_unreachable');
    } else {
      // B died before its first byte reached A: the stream had not started, so C answered it whole.
      expect(target).toBe('peer:c');
      expect(events.at(-1)).toBe('data: [DONE]');
    }
    await waitFor(() => peer(urlOf(0), 'peer:b'), { what: 'B\'s breaker open', until: (p) => p?.breaker.state === 'open' });
    await start('b');
    await waitFor(() => peer(urlOf(0), 'peer:b'), { what: 'B\'s breaker closed', until: (p) => p?.breaker.state === 'closed' && p.state === 'up' });
    const kinds = (await api(urlOf(0), '/api/activity?action=peer.breaker')).json.items.map((r: { message: string }) => r.message.split(':')[0]);
    expect(kinds).toEqual(expect.arrayContaining(['closed -> open', 'half-open -> closed']));
  }, 90_000);
});
