// The connections this process opened, whichever client opened them, are told from those of
// another process on this host (the CLI's), which keep their host authority.
import { spawn } from 'node:child_process';
import { createServer, get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isHostClient, isOwnConnection, trackOwnSockets } from './own-sockets.js';

const seen: boolean[] = [];
const server = createServer((request: IncomingMessage, response) => {
  seen.push(isOwnConnection(request.socket));
  response.end(String(isHostClient(request.socket)));
});
let base = '';

beforeAll(async () => {
  trackOwnSockets();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe('own connections', () => {
  it('knows a request of this process by fetch, undici, node:http and a raw socket', async () => {
    expect(await (await fetch(`${base}/a`)).text()).toBe('false');
    expect(await (await undiciRequest(`${base}/b`)).body.text()).toBe('false');
    expect(await new Promise<string>((done) => get(`${base}/c`, (r) => { let t = ''; r.on('data', (c) => (t += c)); r.on('end', () => done(t)); }))).toBe('false');
    const raw = await new Promise<string>((done) => {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () => socket.write('GET /d HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('end', () => done(text));
    });
    expect(raw.endsWith('false')).toBe(true);
    expect(seen).toEqual([true, true, true, true]);
  });

  it('takes another process on this host for a host client', async () => {
    const child = spawn(process.execPath, ['-e', `fetch(${JSON.stringify(`${base}/e`)}).then((r) => r.text()).then((t) => process.stdout.write(t))`]);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    await new Promise((done) => child.once('exit', done));
    expect(out).toBe('true');
    expect(seen.at(-1)).toBe(false);
  });

  it('is no own connection without a peer port (an injected request)', () => {
    expect(isOwnConnection({ remoteAddress: '127.0.0.1' })).toBe(false);
  });
});
