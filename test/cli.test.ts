// The `svc` command line, run as a user runs it: the built dist/bin/svc.js in a temp
// SVC_HOME, against a real gateway process where the command needs one.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runSvc, useTempGateways } from './helpers/gateway.js';
import { freePort } from './helpers/ports.js';

const { version: PACKAGE_VERSION } = createRequire(import.meta.url)('../package.json') as { version: string };

const SLOT = (name: string, port: number, device = 'cpu') => `[slot]\nname = "${name}"\nport = ${port}\ndevice = "${device}"\n`;
const DEVICE_PROBLEM = 'slots/chat.toml: slot.device: expected one of gpu-rocm, gpu-vulkan, gpu-cuda, cpu, npu; got "gpu"';

// Every test gets its own home and, where it needs one, its own gateway; both go afterwards.
const { home, gateway } = useTempGateways(afterEach);

/** A small $EDITOR: a shell script that runs `body` with the file to edit as $1. */

describe('svc --version', () => {
  it.each(['--version', '-V'])('%s prints the package version and exits 0', (flag) => {
    const h = home();
    const result = runSvc([flag], { home: h.home });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${PACKAGE_VERSION}\n`);
    expect(result.stderr).toBe('');
  });
});

describe('usage errors', () => {
  it('exits 2 on an unknown command', () => {
    const h = home();
    const result = runSvc(['frobnicate'], { home: h.home });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
    expect(result.stdout).toBe('');
  });

  it('says so with --help too, instead of printing the top-level help with exit 0', () => {
    const h = home();
    for (const args of [['frobnicate', '--help'], ['slot', 'frob', '--help'], ['help', 'frobnicate']]) {
      const result = runSvc(args, { home: h.home });
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(`unknown command '${args[0] === 'help' ? args[1] : args.at(-2)}'`);
      expect(result.stdout).toBe('');
    }
    expect(runSvc(['slot', 'list', '--help'], { home: h.home }).status).toBe(0);
  });

  it('the spec commands built last answer as commands, not as "not built yet": memory migrate, agent bootstrap', () => {
    const h = home();
    const memory = runSvc(['memory', 'migrate', '--help'], { home: h.home });
    expect(memory.status).toBe(0);
    expect(memory.stdout).toContain('--cognee-dir');
    expect(memory.stderr).not.toContain('not built yet');
    // `svc agent bootstrap` is built (hermes): with no gateway it is the unreachable exit, 3.
    const bootstrap = runSvc(['agent', 'bootstrap', 'hermes'], { home: h.home, env: { SVC_API_URL: 'http://127.0.0.1:9' } });
    expect(bootstrap.status).toBe(3);
    expect(bootstrap.stderr).not.toContain('not built yet');
  });
});

describe('svc status', () => {
  it('exits 3 with one line naming the URL and how to start the server when nothing listens', async () => {
    const h = home();
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = runSvc(['status'], { home: h.home, env: { SVC_API_URL: url } });
    expect(result.status).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr.endsWith('\n')).toBe(true);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(url);
    expect(lines[0]).toContain('svc serve');
    expect(lines[0]).toContain('connection refused');
  });

  it('exits 3 the same way with --json', async () => {
    const h = home();
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = runSvc(['status', '--json'], { home: h.home, env: { SVC_API_URL: url } });
    expect(result.status).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(url);
  });

  it('refuses a malformed SVC_API_URL instead of falling back to another server', () => {
    const h = home();
    const result = runSvc(['status'], { home: h.home, env: { SVC_API_URL: 'localhost:8080' } });
    expect(result.status).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('svc: environment: SVC_API_URL: expected an http:// or https:// URL; got "localhost:8080"\n');
  });

  it('shows the system and its slots from a running gateway', async () => {
    const h = home({ 'slots/chat.toml': SLOT('chat', 8081) });
    const g = await gateway(h);
    const result = runSvc(['status'], { home: h.home, env: { SVC_API_URL: g.url } });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`svc ${PACKAGE_VERSION}, up `);
    expect(result.stdout).toContain(g.url);
    expect(result.stdout).toContain(`config  ${h.configRoot} (SVC_HOME)`);
    expect(result.stdout).toContain(`state   ${h.stateRoot}`);
    expect(result.stdout).toContain('slots   1 configured, 1 enabled: 1 stopped');
    expect(result.stdout).toMatch(/^NAME\s+TYPE\s+DEVICE\s+PROVIDER\s+PORT\s+STATE\s+PID\s+MODEL$/m);
    expect(result.stdout).toMatch(/^chat\s+llm\s+cpu\s+llama-server\s+8081\s+stopped\s+-\s+-$/m);
  }, 60_000);

  it('--json gives the status payload', async () => {
    const h = home({ 'slots/chat.toml': SLOT('chat', 8081) });
    const g = await gateway(h);
    const result = runSvc(['status', '--json'], { home: h.home, env: { SVC_API_URL: g.url } });
    expect(result.status).toBe(0);
    const status = JSON.parse(result.stdout);
    expect(status.version).toBe(PACKAGE_VERSION);
    expect(status.config_root).toBe(h.configRoot);
    expect(status.home_source).toBe('SVC_HOME');
    expect(status.listen).toEqual({ host: '127.0.0.1', port: g.port });
    expect(status.slots.total).toBe(1);
    expect(status.slots.slots).toEqual([
      expect.objectContaining({ name: 'chat', type: 'llm', device: 'cpu', provider: 'llama-server', port: 8081, enabled: true, state: 'stopped' }),
    ]);
  }, 60_000);
});

describe('an invalid slot file (device = "gpu")', () => {
  it('svc config validate prints the file and field path and exits 4', () => {
    const h = home({ 'slots/chat.toml': SLOT('chat', 8081, 'gpu') });
    const result = runSvc(['config', 'validate'], { home: h.home });
    expect(result.status).toBe(4);
    expect(result.stdout.split('\n')).toContain(DEVICE_PROBLEM);
    expect(result.stdout).toContain(`configuration in ${h.configRoot} has 1 error(s)`);
  });

  it('svc config validate --json gives valid:false and the problem with its file and path', () => {
    const h = home({ 'slots/chat.toml': SLOT('chat', 8081, 'gpu') });
    const result = runSvc(['config', 'validate', '--json'], { home: h.home });
    expect(result.status).toBe(4);
    const report = JSON.parse(result.stdout);
    expect(report.valid).toBe(false);
    expect(report.config_root).toBe(h.configRoot);
    expect(report.problems).toEqual([
      { file: 'slots/chat.toml', path: 'slot.device', message: 'expected one of gpu-rocm, gpu-vulkan, gpu-cuda, cpu, npu; got "gpu"', severity: 'error' },
    ]);
  });

  it('svc serve refuses to start with the same message and exits 4 without listening', () => {
    const h = home({ 'slots/chat.toml': SLOT('chat', 8081, 'gpu') });
    const result = runSvc(['serve', '--port', '0'], { home: h.home });
    expect(result.status).toBe(4);
    expect(result.stderr).toContain(DEVICE_PROBLEM);
    expect(result.stderr).toContain('svc will not start');
    expect(result.stdout).not.toContain('listening on');
    // Refusing to start writes no state either.
    expect(existsSync(join(h.stateRoot, 'activity.db'))).toBe(false);
  });

  it('a valid configuration validates with exit 0', () => {
    const h = home({ 'slots/chat.toml': SLOT('chat', 8081) });
    const result = runSvc(['config', 'validate'], { home: h.home });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`configuration in ${h.configRoot} is valid, 1 slot file(s)`);
    const json = JSON.parse(runSvc(['config', 'validate', '--json'], { home: h.home }).stdout);
    expect(json).toEqual({ valid: true, config_root: h.configRoot, problems: [] });
  });
});
