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

/** A promise and the function that settles it: an event a test can wait for. */
function signal(): { done: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const done = new Promise<void>((resolve) => (fire = resolve));
  return { done, fire };
}

describe('shutdown', () => {
  it('answers requests that arrive while closing with system.shutting_down', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-shutdown-'));
    const paths = resolvePaths({ env: { SVC_HOME: home }, isRoot: false, homeDir: home, exists: () => false });
    const outcome = await loadConfig(paths, {});
    if (!outcome.ok) throw new Error('empty config should load');
    const app = buildApp(new ServerContext(paths, outcome.config, undefined));
    const events: string[] = [];
    const entered = signal();
    const closing = signal();
    const answered = signal();
    const held = signal();
    // Every route needs a row in the access table, so the slow request is a held GET /api/features.
    app.addHook('preHandler', async (request) => {
      if (request.url !== '/api/features') return;
      events.push('slow entered');
      entered.fire();
      await held.done;
    });
    // Observers only: preClose hooks run in order, so this one runs after the app's own.
    app.addHook('preClose', async () => {
      events.push('closing');
      closing.fire();
    });
    app.addHook('onSend', async (request, reply, payload) => {
      events.push(`${request.url} answered ${reply.statusCode}`);
      if (request.url === '/api/status') answered.fire();
      return payload;
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };

    // Two pipelined requests on one connection: the first keeps it busy while the server
    // starts closing, so the second arrives during the drain.
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.write('GET /api/features HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await entered.done;
    const closed = app.close();
    await closing.done;
    socket.write('GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await answered.done;
    events.push('slow released');
    held.fire();
    await closed;
    expect(events).toEqual(['slow entered', 'closing', '/api/status answered 503', 'slow released', '/api/features answered 200']);
    await expect.poll(() => received, { timeout: 10_000 }).toContain('"code":"system.shutting_down"');
    socket.destroy();

    expect(received).toMatch(/^HTTP\/1\.1 200/);
    const second = received.slice(received.indexOf('HTTP/1.1 503'));
    expect(second).toMatch(/^HTTP\/1\.1 503/);
    expect(second.toLowerCase()).toContain('retry-after: 1');
    expect(second).toContain('"code":"system.shutting_down"');
  });
});
