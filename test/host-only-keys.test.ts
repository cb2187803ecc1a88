// Default mode is not a remote shell: every host-only key (protocol/host-only.ts) is refused
// to a LAN client with 403 config.host_only and leaves svc.toml byte for byte as it was,
// while the same change from this host, or from the LAN with an admin token, goes through.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_ONLY_SETTINGS } from '../src/protocol/host-only.js';
import { api, type Gateway, startGateway, tempHome, type TempHome } from './helpers/gateway.js';
import { type Lan, lanSkipReason, openLan } from './helpers/lan.js';

const skip = lanSkipReason();

/** A valid value for each host-only key that differs from the default; a key without one fails the test. */
const CHANGES: Record<string, unknown> = {
  'engines.llama_server': '/tmp/x.sh',
  'engines.flm': '/tmp/x.sh',
  'engines.moonshine': '/tmp/x.sh --serve',
  'engines.kokoro': '/tmp/x.sh',
  'engines.qwen3tts': 'python3 /tmp/x.py',
  'engines.comfyui': 'python3 /tmp/x.py',
  'engines.runtime': 'docker',
  'models.store': '/tmp/store',
  'models.roots': ['/tmp/roots'],
  'models.pull_allowed_hosts': ['10.0.0.5:8080'],
  'slots.publish_host': '0.0.0.0',
  'api.max_body_mb': 128,
  'api.public_hostnames': ['svc.lan'],
  'api.allowed_origins': ['http://localhost:3000'],
  'mcp.registry_url': 'http://127.0.0.1:9/registry',
  'mcp.allowed_hosts': ['10.0.0.5'],
  'memory.pgvector_url': 'postgres://svc@127.0.0.1:9/memory',
  'memory.hindsight_url': 'http://127.0.0.1:9/',
  'memory.mem0_url': 'http://127.0.0.1:9/',
};

function patchFor(key: string, value: unknown): Record<string, unknown> {
  const [section, name] = key.split('.') as [string, string];
  return { [section]: { [name]: value } };
}

let home: TempHome;
let gateway: Gateway;
let lan: Lan;
/** A request from a client on another host (a network namespace of this test's own). */
const fromLan = (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) => lan.request(`${lan.url(gateway.port)}${path}`, init);
const SVC_TOML = 'slots = { idle_timeout_s = 300 }\n';

beforeAll(async () => {
  if (skip) return;
  home = tempHome({ 'svc.toml': SVC_TOML });
  [gateway, lan] = await Promise.all([startGateway(home.home, { args: ['--host', '0.0.0.0'] }), openLan()]);
});
afterAll(async () => {
  lan?.close();
  await gateway?.stop();
});

const svcToml = () => readFileSync(join(home.configRoot, 'svc.toml'), 'utf8');

describe.skipIf(skip)(`host-only keys in default mode ${skip ?? ''}`, () => {
  it('has an example change for every host-only key', () => {
    expect(Object.keys(HOST_ONLY_SETTINGS).filter((key) => !(key in CHANGES))).toEqual([]);
  });

  it('refuses each one to a LAN client and leaves svc.toml untouched', async () => {
    for (const key of Object.keys(HOST_ONLY_SETTINGS)) {
      const before = svcToml();
      const answer = await fromLan('/api/settings', { method: 'PUT', body: patchFor(key, CHANGES[key]) });
      expect([answer.status, answer.json?.error?.code], key).toEqual([403, 'config.host_only']);
      expect(answer.json.error.details.keys, key).toEqual([key]);
      expect(svcToml(), key).toBe(before);
    }
  });

  it('lets a harmless key through from the LAN, and a host-only key set to its current value', async () => {
    const harmless = await fromLan('/api/settings', { method: 'PUT', body: { slots: { idle_timeout_s: 120 } } });
    expect(harmless.status).toBe(200);
    const same = await fromLan('/api/settings', { method: 'PUT', body: { engines: { runtime: 'process' } } });
    expect(same.status).toBe(200);
  });

  it('refuses a profile that adds file or code flags from the LAN; this host may', async () => {
    const refused = await fromLan('/api/profiles', { method: 'POST', body: { name: 'logs', image: '', device_class: 'cpu', flags: '--log-file /tmp/x.log' } });
    expect([refused.status, refused.json.error.code, refused.json.error.details.keys]).toEqual([403, 'config.host_only', ['profiles.logs.flags --log-file /tmp/x.log']]);
    const plain = await fromLan('/api/profiles', { method: 'POST', body: { name: 'logs', image: '', device_class: 'cpu', flags: '--parallel 2' } });
    expect(plain.status).toBe(201);
    const lora = await fromLan('/api/profiles/logs', { method: 'PUT', body: { flags: '--parallel 2 --lora=/tmp/a.gguf' } });
    expect([lora.status, lora.json.error.details.keys]).toEqual([403, ['profiles.logs.flags --lora /tmp/a.gguf']]);
    const local = await api(gateway.url, '/api/profiles/logs', { method: 'PUT', body: { flags: '--parallel 2 --lora=/tmp/a.gguf' } });
    expect(local.status).toBe(200);
    // Flags already there may stay when someone on the LAN changes something else.
    const keep = await fromLan('/api/profiles/logs', { method: 'PUT', body: { intent: 'with a lora' } });
    expect(keep.status).toBe(200);
  });

  it('refuses registering a model file from the LAN, and records the refused settings change', async () => {
    const register = await fromLan('/api/models', { method: 'POST', body: { id: 'x', path: '/etc/passwd' } });
    expect([register.status, register.json.error.code, register.json.error.details.keys]).toEqual([403, 'config.host_only', ['path']]);
    const activity = await api(gateway.url, '/api/activity?action=settings.update&limit=100');
    expect(activity.text).toContain('engines.llama_server');
  });

  it('takes each one from this host', async () => {
    for (const key of Object.keys(HOST_ONLY_SETTINGS)) {
      const answer = await api(gateway.url, '/api/settings', { method: 'PUT', body: patchFor(key, CHANGES[key]) });
      expect(answer.status, `${key}: ${answer.text}`).toBe(200);
    }
    expect(svcToml()).toContain('/tmp/x.sh');
  });

  it('takes one from the LAN with an admin token, not with a lesser one', async () => {
    const admin = (await api(gateway.url, '/api/auth/tokens', { method: 'POST', body: { label: 'admin', scope: 'admin' } })).json.token;
    const reader = (await api(gateway.url, '/api/auth/tokens', { method: 'POST', body: { label: 'reader', scope: 'all' } })).json.token;
    const patch = { slots: { publish_host: '127.0.0.2' } };
    const refused = await fromLan('/api/settings', { method: 'PUT', body: patch, headers: { authorization: `Bearer ${reader}` } });
    expect(refused.json?.error?.code).toBe('config.host_only');
    const taken = await fromLan('/api/settings', { method: 'PUT', body: patch, headers: { authorization: `Bearer ${admin}` } });
    expect(taken.status).toBe(200);
    expect(svcToml()).toContain('127.0.0.2');
  });
});
