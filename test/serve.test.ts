// `svc serve` options as a user runs them: SVC_PORT, a taken port, and --reload.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { homeWithFaultSlots } from './helpers/faults.js';
import { api, runSvc, startGateway, SVC_BIN, svcEnv, tempHome } from './helpers/gateway.js';
import { processAlive } from './helpers/llama.js';
import { freePort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

/** The matches of `pattern` in the output, once it has printed `count` of them. */
async function printed(read: () => string, pattern: RegExp, count = 1): Promise<RegExpMatchArray[]> {
  const matches = (text: string) => [...text.matchAll(new RegExp(pattern, 'g'))];
  return matches(await waitFor(read, { what: `${count} line(s) matching ${pattern}`, until: (text) => matches(text).length >= count, timeout: 20_000 }));
}

describe('svc serve', () => {
  it('listens on SVC_PORT when --port is not given', async () => {
    const home = tempHome();
    const port = await freePort();
    const child = spawn(process.execPath, [SVC_BIN, 'serve'], { env: svcEnv(home.home, { SVC_PORT: String(port) }) });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    try {
      await printed(() => out, /listening on/);
      expect(out).toContain(`http://127.0.0.1:${port}`);
      expect((await api(`http://127.0.0.1:${port}`, '/api/health/system')).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('exits 6 with one clear line when the port is taken', async () => {
    const home = tempHome();
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const { port } = blocker.address() as { port: number };
    try {
      const result = runSvc(['serve', '--port', String(port)], { home: home.home });
      expect(result.status).toBe(6);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain(`cannot listen on 127.0.0.1:${port}`);
    } finally {
      blocker.close();
    }
  });

  it('SIGHUP (a closed terminal) shuts down gracefully, like SIGTERM: exit 0, its engine stopped', async () => {
    const home = await homeWithFaultSlots([{ name: 'chat' }]);
    const gateway = await startGateway(home.home, { env: home.env });
    try {
      expect((await api(gateway.url, '/api/slots/chat/load', { method: 'POST' })).status).toBe(200);
      const engine = (await api(gateway.url, '/api/slots/chat')).json.pid as number;
      expect(processAlive(engine)).toBe(true);
      gateway.process.kill('SIGHUP');
      expect(await new Promise((done) => gateway.process.once('exit', (code, signal) => done(code ?? signal)))).toBe(0);
      expect(gateway.output()).toContain('SIGHUP received, shutting down');
      await waitFor(() => !processAlive(engine), { what: 'the engine to exit with the gateway' });
    } finally {
      await gateway.kill();
    }
  });

  it('rejects a bad --port as a usage error', () => {
    const result = runSvc(['serve', '--port', 'eighty'], { home: tempHome().home });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--port');
  });

  it('--reload restarts the server when the configuration changes', async () => {
    const home = tempHome();
    const child = spawn(process.execPath, [SVC_BIN, 'serve', '--port', '0', '--reload'], { env: svcEnv(home.home) });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    try {
      await printed(() => out, /listening on http:\/\/127\.0\.0\.1:(\d+)/);
      home.write('svc.toml', '[slots]\nidle_timeout_s = 42\n');
      const [, second] = await printed(() => out, /listening on http:\/\/127\.0\.0\.1:(\d+)/, 2);
      expect(out).toMatch(/changed, restarting/);
      const settings = (await api(`http://127.0.0.1:${second![1]}`, '/api/settings')).json.settings;
      expect(settings.slots.idle_timeout_s).toBe(42);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    expect(child.exitCode).toBe(0);
  }, 60_000);
});
