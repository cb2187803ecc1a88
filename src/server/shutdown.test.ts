// A request that reaches the server while it closes gets our envelope (system.shutting_down
// with Retry-After), not Fastify's own 503 body.
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load.js';
import { resolvePaths } from '../config/paths.js';
import { buildApp } from './app.js';
import { ServerContext } from './context.js';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('shutdown', () => {
  it('answers requests that arrive while closing with system.shutting_down', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-shutdown-'));
    const paths = resolvePaths({ env: { SVC_HOME: home }, isRoot: false, homeDir: home, exists: () => false });
    const outcome = await loadConfig(paths, {});
    if (!outcome.ok) throw new Error('empty config should load');
    const app = buildApp(new ServerContext(paths, outcome.config, undefined));
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    app.get('/test/slow', { config: { access: 'public' } }, async () => {
      await held;
      return { ok: true };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };

    // Two pipelined requests on one connection: the first keeps it busy while the server
    // starts closing, so the second arrives during the drain.
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.write('GET /test/slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await sleep(50);
    const closed = app.close();
    await sleep(50);
    socket.write('GET /api/status HTTP/1.1\r\nHost: x\r\n\r\n');
    await sleep(50);
    release();
    await closed;
    for (let i = 0; i < 40 && !received.includes('shutting_down'); i++) await sleep(25);
    socket.destroy();

    const second = received.slice(received.indexOf('HTTP/1.1 503'));
    expect(second).toMatch(/^HTTP\/1\.1 503/);
    expect(second.toLowerCase()).toContain('retry-after: 1');
    expect(second).toContain('"code":"system.shutting_down"');
  });
});
