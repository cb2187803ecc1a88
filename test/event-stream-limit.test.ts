// The cap on open server-sent event streams (issue 22), on the real gateway: streams up to
// the cap open, the next one is a 503 system.too_many_streams with Retry-After whatever
// route it asks for, other clients are not affected until the gateway's own cap, and a
// closed stream frees its place. Loopback has a whole /8 of addresses, so one test process
// can be many clients.
import { request, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_STREAM_LIMIT } from '../src/server/stream-limit.js';
import { useTempGateways } from './helpers/gateway.js';
import { waitFor } from './helpers/wait.js';

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  /** The error envelope of a refused stream. */
  json?: { error: { code: string; details: Record<string, unknown> } };
  close(): void;
}

const { home: newHome, gateway: newGateway } = useTempGateways(afterEach);
const open: Answer[] = [];
afterEach(() => open.splice(0).forEach((stream) => stream.close()));
/** Each test has a gateway of its own: no stream of another test still counts. */
let port = 0;

/** A stream from `localAddress`: an open one as soon as its head arrives, a refused one read to its end. */
function openStream(path: string, localAddress: string): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress, agent: false }, (res) => {
      const close = () => req.destroy();
      if (res.statusCode === 200) {
        const answer = { status: 200, headers: res.headers, close };
        open.push(answer);
        return done(answer);
      }
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => done({ status: res.statusCode!, headers: res.headers, json: JSON.parse(text), close }));
    });
    req.on('error', fail);
    req.end();
  });
}

const events = (from: string) => openStream('/api/events/stream', from);
const follow = (from: string) => openStream('/api/slots/chat/logs?follow=true', from);
const many = (count: number, from: string) => Promise.all(Array.from({ length: count }, () => events(from)));

async function startGateway(): Promise<void> {
  const home = newHome({ 'slots/chat.toml': '[slot]\nname = "chat"\nport = 8081\ndevice = "cpu"\n' });
  port = (await newGateway(home)).port;
}

describe('the cap on open event streams', () => {
  const { perClient, total } = DEFAULT_STREAM_LIMIT;

  it('refuses one client past its share, on every stream route, and lets it in again once a stream closes', async () => {
    await startGateway();
    const mine = [...(await many(perClient - 1, '127.0.0.1')), await follow('127.0.0.1')];
    expect(mine.map((a) => a.status)).toEqual(new Array(perClient).fill(200));
    for (const refused of [await events('127.0.0.1'), await follow('127.0.0.1')]) {
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe(String(refused.json!.error.details.retry_after_s));
      expect(refused.json!.error).toMatchObject({ code: 'system.too_many_streams', details: { scope: 'client', limit: perClient } });
    }
    expect((await events('127.0.0.2')).status).toBe(200);
    mine[0]!.close();
    // The gateway counts a stream until it sees its socket close.
    await waitFor(async () => (await events('127.0.0.1')).status, { what: 'the closed stream to stop counting', until: (status) => status === 200 });
  }, 60_000);

  it('refuses every client once the gateway holds its total', async () => {
    await startGateway();
    const clients = Array.from({ length: total / perClient }, (_, i) => `127.0.1.${i + 1}`);
    const opened = (await Promise.all(clients.map((from) => many(perClient, from)))).flat();
    expect(opened.filter((a) => a.status === 200)).toHaveLength(total);
    const refused = await events('127.0.2.1');
    expect(refused.status).toBe(503);
    expect(refused.json!.error).toMatchObject({ code: 'system.too_many_streams', details: { scope: 'gateway', limit: total } });
  }, 60_000);
});
