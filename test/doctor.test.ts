// svc doctor against a real gateway and its built-in engine: the battery passes on a working
// home (the API's and the slot's ports held by svc are not conflicts), fails with the field
// path on a broken config and with the pid on a port another process holds; perms finds a
// secret readable by others and (as root) fixes it; toolbox-pull asks a real registry
// (Debian's docker-registry) for digests.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findProgram } from '../src/deploy/systemd.js';
import { api, runSvcAsync, startGateway, type Gateway, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { freePort, freeSlotPort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

const registryBin = findProgram('docker-registry');
if (!registryBin && process.env.CI === 'true') throw new Error('docker-registry is not installed; CI must install it (.ci/run)');

let home: TempHome;
let gw: Gateway;

beforeAll(async () => {
  home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin' }]);
  gw = await startGateway(home.home);
  expect((await api(gw.url, '/api/slots/chat/load', { method: 'POST' })).json.state).toBe('ready');
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

const doctor = (args: string[], env: Record<string, string> = {}) => runSvcAsync(['doctor', ...args], { home: home.home, env: { SVC_PORT: String(gw.port), ...env } });

describe('svc doctor', () => {
  it('passes on a working home: the ports svc itself holds are not conflicts', async () => {
    const result = await doctor(['--plain']);
    expect(result.status, result.stdout).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^ok +port:${gw.port}: ${gw.port} \\(the API\\) is held by this home's gateway \\(pid \\d+\\)`, 'm'));
    expect(result.stdout).toMatch(/^ok +port:\d+: \d+ \(slot chat\) is held by slot chat's engine \(pid \d+\)/m);
    expect(result.stdout).toMatch(/^ok +config: every file valid; 1 slot\(s\)/m);
    expect(result.stdout).toContain(`ok   gateway: serving this home at ${gw.url} (pid ${gw.process.pid}`);
    expect(result.stdout).toMatch(/^ok +builtin-engine: node-llama-cpp loads/m);
    expect(result.stdout).not.toContain(String.fromCharCode(27));
    const json = JSON.parse((await doctor(['--json'])).stdout);
    expect(json).toMatchObject({ ok: true, failed: 0 });
    expect(json.checks.map((c: { id: string }) => c.id)).toEqual(expect.arrayContaining(['config', 'gateway', 'config-writable', 'state-writable', 'disk', 'llama-server', 'builtin-engine', 'devices', 'memory', 'service', 'proxy', 'updates', 'clock']));
  }, 60_000);

  it('fails on a port another process holds, naming its pid; --ports adds ports as warnings', async () => {
    const busy: Server = createServer();
    const port = await freeSlotPort();
    const extra = await freePort();
    const other: Server = createServer();
    await new Promise<void>((r) => other.listen(extra, '127.0.0.1', r));
    await new Promise<void>((r) => busy.listen(port, '127.0.0.1', r));
    try {
      home.write('slots/other.toml', `[slot]\nname = "other"\nport = ${port}\ndevice = "cpu"\nprovider = "builtin"\n[model]\ndefault = "tiny"\n`);
      const result = await doctor(['--plain', '--ports', `${extra}`]);
      expect(result.status).toBe(1);
      expect(result.stdout).toContain(`fail port:${port}: ${port} (slot other) is held by pid ${process.pid}`);
      expect(result.stdout).toMatch(/^ +fix: stop it, or move slot other to another port/m);
      expect(result.stdout).toContain(`warn port:${extra}: ${extra} (--ports) is held by pid ${process.pid}`);
      expect(result.stderr).toContain('1 check(s) failed');
    } finally {
      busy.close();
      other.close();
      rmSync(join(home.configRoot, 'slots/other.toml'));
    }
  });

  it('fails on an invalid config with the file and field path', async () => {
    home.write('slots/bad.toml', '[slot]\nname = "bad"\nport = 8150\ndevice = "gpu"\n');
    try {
      const result = await doctor(['--plain']);
      expect(result.status).toBe(1);
      expect(result.stdout).toMatch(/^fail config: 1 error\(s\): slots\/bad.toml: slot.device: expected one of/m);
    } finally {
      rmSync(join(home.configRoot, 'slots/bad.toml'));
    }
  });

  it('perms finds a secret others can read and a directory others can write; --fix repairs them as root', async () => {
    const tokens = join(home.configRoot, 'tokens.toml');
    writeFileSync(tokens, 'schema_version = 1\n');
    chmodSync(tokens, 0o644);
    chmodSync(home.configRoot, 0o777);
    const audit = await doctor(['perms']);
    expect(audit.status).toBe(1);
    expect(audit.stdout).toContain(`drift ${tokens}: mode 0644: a secret must be 0600`);
    expect(audit.stdout).toContain(`drift ${home.configRoot}: mode 0777: writable by everyone`);
    const fix = await doctor(['perms', '--fix']);
    if (process.getuid?.() === 0) {
      expect(fix.status, fix.stderr).toBe(0);
      expect(statSync(tokens).mode & 0o777).toBe(0o600);
      expect(statSync(home.configRoot).mode & 0o777).toBe(0o755);
      expect((await doctor(['perms'])).status).toBe(0);
    } else {
      expect(fix.status).toBe(1);
      expect(fix.stderr).toContain('needs root');
      expect(statSync(tokens).mode & 0o777).toBe(0o644);
    }
  });
});

describe.skipIf(!registryBin)('svc doctor toolbox-pull against a real registry', () => {
  let registry: ChildProcess;
  let base: string;
  let host: string;
  let pushed: string;
  const dir = mkdtempSync(join(tmpdir(), 'svc-registry-'));

  beforeAll(async () => {
    const port = await freePort();
    host = `127.0.0.1:${port}`;
    base = `http://${host}`;
    writeFileSync(join(dir, 'config.yml'), `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${join(dir, 'data')}\nhttp:\n  addr: ${host}\n`);
    registry = spawn(registryBin!, ['serve', join(dir, 'config.yml')], { stdio: 'ignore' });
    await waitFor(async () => (await fetch(`${base}/v2/`)).ok, { what: 'the OCI registry to listen' });
    pushed = await push('tools/engine', 'v1');
  }, 30_000);
  afterAll(() => {
    registry?.kill();
  });

  /** Push a minimal OCI image (a config blob, no layers) the way a client does; returns its manifest digest. */
  async function push(repo: string, tag: string): Promise<string> {
    const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers', diff_ids: [] } }));
    const digest = `sha256:${createHash('sha256').update(config).digest('hex')}`;
    const start = await fetch(`${base}/v2/${repo}/blobs/uploads/`, { method: 'POST' });
    const location = new URL(start.headers.get('location')!, base);
    location.searchParams.set('digest', digest);
    expect((await fetch(location, { method: 'PUT', body: config, headers: { 'content-type': 'application/octet-stream' } })).status).toBe(201);
    const manifest = JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest, size: config.length }, layers: [] });
    const put = await fetch(`${base}/v2/${repo}/manifests/${tag}`, { method: 'PUT', body: manifest, headers: { 'content-type': 'application/vnd.oci.image.manifest.v1+json' } });
    expect(put.status, await put.text()).toBe(201);
    return put.headers.get('docker-content-digest')!;
  }

  const manifest = (images: Record<string, { image: string; tag: string; digest: string | null }>) => {
    const path = join(dir, `manifest-${Object.keys(images).join('-') || 'empty'}.json`);
    writeFileSync(path, JSON.stringify({ _schema: 'svc.manifest.v1', toolbox_images: images }));
    return path;
  };

  it('reports each digest, a pin that matches and one that drifted (exit 0); an image it cannot reach is exit 1; none listed is exit 2', async () => {
    const good = { image: `${host}/tools/engine`, tag: 'v1' };
    const ok = await runSvcAsync(['doctor', 'toolbox-pull', '--json', '--manifest', manifest({ pinned: { ...good, digest: pushed }, drifted: { ...good, digest: `sha256:${'0'.repeat(64)}` } })], { home: home.home });
    expect(ok.status, ok.stderr).toBe(0);
    const rows = JSON.parse(ok.stdout).images;
    expect(rows).toEqual([
      { name: 'pinned', image: good.image, tag: 'v1', ok: true, digest: pushed, pinned_digest: pushed, matches_pin: true, error: null },
      expect.objectContaining({ name: 'drifted', ok: true, digest: pushed, matches_pin: false }),
    ]);
    const missing = await runSvcAsync(['doctor', 'toolbox-pull', '--manifest', manifest({ pinned: { ...good, digest: pushed }, gone: { image: `${host}/tools/engine`, tag: 'v9', digest: null } })], { home: home.home });
    expect(missing.status).toBe(1);
    expect(missing.stdout).toContain(`ok   pinned: ${good.image}:v1 → ${pushed} (matches the pin)`);
    expect(missing.stdout).toMatch(/FAIL gone: .*:v9: 404/);
    const none = await runSvcAsync(['doctor', 'toolbox-pull', '--manifest', manifest({})], { home: home.home });
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('lists no toolbox_images');
  });
});
