import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { probeHealth } from './health.js';

const servers: Server[] = [];

async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

const never = () => new AbortController().signal;

describe('probeHealth', () => {
  it('reads 503 as loading, then 200 as ready (llama-server while loading, then loaded)', async () => {
    let loaded = false;
    const base = await serve((req, res) => {
      if (req.url !== '/health') return void res.writeHead(404).end();
      if (!loaded) {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":503,"message":"Loading model"}}');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      }
    });
    expect(await probeHealth(base, never())).toBe('loading');
    loaded = true;
    expect(await probeHealth(`${base}/`, never())).toBe('ready');
  });

  it('reads a 200 with model_loaded: false as loading', async () => {
    const base = await serve((_req, res) => res.writeHead(200).end('{"status":"loading","model_loaded":false}'));
    expect(await probeHealth(base, never())).toBe('loading');
  });

  it('falls back to /v1/models on another status: 200 there is ready, anything else loading', async () => {
    let modelsStatus = 200;
    const seen: string[] = [];
    const base = await serve((req, res) => {
      seen.push(req.url ?? '');
      if (req.url === '/health') return void res.writeHead(500).end('oops');
      res.writeHead(modelsStatus, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}');
    });
    expect(await probeHealth(base, never())).toBe('ready');
    expect(seen).toEqual(['/health', '/v1/models']);
    modelsStatus = 404;
    expect(await probeHealth(base, never())).toBe('loading');
  });

  it('is down on a closed port', async () => {
    const base = await serve(() => undefined);
    const s = servers.pop()!;
    await new Promise((resolve) => s.close(resolve));
    expect(await probeHealth(base, never())).toBe('down');
  });

  it('is down when the engine does not answer in time, or the caller aborts', async () => {
    const base = await serve(() => undefined); // accepts, never answers
    expect(await probeHealth(base, never(), 100)).toBe('down');
    const controller = new AbortController();
    const probe = probeHealth(base, controller.signal);
    controller.abort();
    expect(await probe).toBe('down');
  });
});
