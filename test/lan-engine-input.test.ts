// Engine input from a LAN client (docs/auth.md, "Host-only keys"): a gateway on 0.0.0.0 and a
// client on another host (a network namespace of this test's own). Every way the issue found
// to carry a file, host or code flag, an image, or a loader variable past the host-only guard
// is refused with 403 config.host_only and writes nothing; the same change from this host
// goes through; where an engine listens is refused from anywhere.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_PROFILES } from '../src/config/profiles.js';
import { api, type Gateway, startGateway, type TempHome } from './helpers/gateway.js';
import { type Lan, lanSkipReason, openLan } from './helpers/lan.js';
import { homeWithTinySlots } from './helpers/llama.js';

const skip = lanSkipReason();
let home: TempHome;
let gateway: Gateway;
let lan: Lan;
const fromLan = (method: string, path: string, body?: unknown) => lan.request(`${lan.url(gateway.port)}${path}`, { method, ...(body !== undefined && { body }) });
const fromHost = (method: string, path: string, body?: unknown) => api(gateway.url, path, { method, ...(body !== undefined && { body }) });
const file = (name: string) => (existsSync(join(home.configRoot, name)) ? readFileSync(join(home.configRoot, name), 'utf8') : null);
const refused = (answer: { status: number; json: { error?: { code?: string } } }) => [answer.status, answer.json?.error?.code];

beforeAll(async () => {
  if (skip) return;
  home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin' }]);
  [gateway, lan] = await Promise.all([startGateway(home.home, { args: ['--host', '0.0.0.0'] }), openLan()]);
}, 60_000);
afterAll(async () => {
  lan?.close();
  await gateway?.stop();
});

describe.skipIf(skip)(`engine input from the LAN ${skip ?? ''}`, () => {
  const row = (extra: string | null) => ({ slot: 'p', model: 'tiny', device: 'cpu', provider: 'llama-server', server_extra_args: extra });

  it('keeps stack rows with file flags to the host: create, replace, import and apply', async () => {
    const hostile = { slug: 'evil', name: 'evil', slots: [row('--log-file /tmp/x')] };
    expect(refused(await fromLan('POST', '/api/stacks', hostile))).toEqual([403, 'config.host_only']);
    expect(file('stacks.toml')).toBeNull();
    // A clean stack from the LAN is fine; giving it the flag is not.
    expect((await fromLan('POST', '/api/stacks', { ...hostile, slots: [row('-t 2')] })).status).toBe(201);
    expect(refused(await fromLan('PUT', '/api/stacks/evil', { name: 'evil', slots: [row('-t 2 --log_file /tmp/x')] }))).toEqual([403, 'config.host_only']);
    expect(file('stacks.toml')).not.toContain('log');
    const envelope = (await fromHost('GET', '/api/stacks/evil/export')).json;
    envelope.stack.slots[0].server_extra_args = '--slot-save-path /tmp/s';
    const { createHash } = await import('node:crypto');
    const { canonicalJson } = await import('../src/protocol/canonical-json.js');
    envelope.stack.slug = 'evil2';
    envelope.checksum = `sha256:${createHash('sha256').update(canonicalJson(envelope.stack)).digest('hex')}`;
    expect(refused(await fromLan('POST', '/api/stacks/import', { envelope }))).toEqual([403, 'config.host_only']);
    expect(refused(await fromLan('POST', '/api/stacks/import', envelope))).toEqual([403, 'config.host_only']);
    // The host may store it; a LAN client may still not apply it: that would write the flag into slots/p.toml.
    expect((await fromHost('POST', '/api/stacks/import', envelope)).status).toBe(201);
    expect(refused(await fromLan('POST', '/api/stacks/evil2/apply'))).toEqual([403, 'config.host_only']);
    expect(file('slots/p.toml')).toBeNull();
    const applied = await fromHost('POST', '/api/stacks/evil2/apply');
    expect(applied.status, applied.text).toBe(200);
    expect(file('slots/p.toml')).toContain('--slot-save-path /tmp/s');
  });

  it('refuses where an engine listens from anywhere, the host included', async () => {
    for (const extra of ['--port 9000', '--host 0.0.0.0', '--reuse_port']) {
      for (const send of [fromLan, fromHost]) {
        const answer = await send('POST', '/api/stacks', { slug: 'listen', name: 'l', slots: [row(extra)] });
        expect(answer.status, extra).toBe(400);
        expect(JSON.stringify(answer.json.error.details), extra).toContain("svc's own");
      }
    }
    const comfy = await fromHost('POST', '/api/profiles', { name: 'exposed', image: '', device_class: 'img', flags: '--listen 0.0.0.0' });
    expect([comfy.status, comfy.json.error.code]).toEqual([400, 'config.invalid']);
  });

  it('sees through the spellings engines accept, and compares values', async () => {
    const spellings = ['--log_file /tmp/x', '--slot_save_path /tmp/s', '--chat_template_file /tmp/t', '--hf_repo a/b', '-mm /tmp/p.gguf', '-mmu http://x/p', '--mmproj-url http://x/p', '-hff f.gguf', '-hfv a/b', '-hffv f', '--tools all'];
    for (const flags of spellings) {
      expect(refused(await fromLan('POST', '/api/profiles', { name: 'sneaky', image: '', device_class: 'cpu', flags })), flags).toEqual([403, 'config.host_only']);
    }
    for (const flags of ['--output-directory /tmp/o', '--user-directory /tmp/u', '--extra-model-paths-config /tmp/e.yaml', '--output /tmp/o']) {
      expect(refused(await fromLan('POST', '/api/profiles', { name: 'sneaky', image: '', device_class: 'img', flags })), flags).toEqual([403, 'config.host_only']);
    }
    expect(file('profiles.toml')).toBeNull();
    expect((await fromHost('POST', '/api/profiles', { name: 'lora', image: '', device_class: 'cpu', flags: '--lora /m/a.gguf' })).status).toBe(201);
    expect((await fromLan('PUT', '/api/profiles/lora', { flags: '--lora /m/a.gguf -t 2' })).status).toBe(200);
    expect(refused(await fromLan('PUT', '/api/profiles/lora', { flags: '--lora /m/b.gguf -t 2' }))).toEqual([403, 'config.host_only']);
    expect(file('profiles.toml')).toContain('/m/a.gguf -t 2');
    expect((await fromLan('POST', '/api/profiles', { name: 'tuned', image: '', device_class: 'cpu', flags: '-t 2 --temp 0.7 --n_gpu_layers 10 --jinja' })).status).toBe(201);
  });

  it('validates a profile\'s image everywhere and keeps a new image to the host', async () => {
    for (const send of [fromLan, fromHost]) {
      const answer = await send('POST', '/api/profiles', { name: 'img', image: '--volume=/:/host', device_class: 'cpu', flags: 'docker.io/library/busybox' });
      expect([answer.status, answer.json.error.code]).toEqual([400, 'request.invalid']);
    }
    expect(refused(await fromLan('POST', '/api/profiles', { name: 'img', image: 'docker.io/library/busybox', device_class: 'cpu' }))).toEqual([403, 'config.host_only']);
    expect((await fromLan('POST', '/api/profiles', { name: 'img', image: SEED_PROFILES.vulkan!.image, device_class: 'cpu' })).status).toBe(201);
    expect(refused(await fromLan('PUT', '/api/profiles/img', { image: 'docker.io/library/busybox:1' }))).toEqual([403, 'config.host_only']);
    expect((await fromHost('PUT', '/api/profiles/img', { image: 'docker.io/library/busybox:1' })).status).toBe(200);
  });

  it('keeps slot flags, loader variables and a profile moved to another engine to the host', async () => {
    const slot = { name: 'lanslot', model: 'tiny', device: 'cpu', provider: 'llama-server' };
    expect(refused(await fromLan('POST', '/api/slots', { ...slot, extra_args: '--log-file /tmp/x' }))).toEqual([403, 'config.host_only']);
    expect(refused(await fromLan('POST', '/api/slots', { ...slot, env: { LD_PRELOAD: '/tmp/x.so' } }))).toEqual([403, 'config.host_only']);
    expect(file('slots/lanslot.toml')).toBeNull();
    expect((await fromLan('POST', '/api/slots', { ...slot, extra_args: '-t 1', env: { CUDA_VISIBLE_DEVICES: '0' } })).status).toBe(201);
    expect(refused(await fromLan('PUT', '/api/slots/lanslot', { extra_args: '-t 1 -m /etc/passwd' }))).toEqual([403, 'config.host_only']);
    // ComfyUI's argparse reads a llama profile's --temp as --temp-directory.
    expect((await fromHost('POST', '/api/profiles', { name: 'warm', image: '', device_class: 'cpu', flags: '--temp 0.7' })).status).toBe(201);
    expect(refused(await fromLan('POST', '/api/slots', { name: 'pics', model: 'sdxl', type: 'image', profile: 'warm' }))).toEqual([403, 'config.host_only']);
    expect((await fromHost('PUT', '/api/slots/lanslot', { extra_args: '-t 1 -m /etc/passwd' })).status).toBe(200);
    const rows = (await fromHost('GET', '/api/activity?outcome=error&limit=200')).json;
    expect(JSON.stringify(rows)).toContain(lan.clientAddress);
  });

  // The attacks through [server].env (issue 36 item 1): each a way to give llama-server a
  // flag (LLAMA_ARG_*), to run code in an engine (LD_PRELOAD, NODE_OPTIONS, PYTHONWARNINGS with
  // BROWSER), or an allowlisted name carrying something else than a device list.
  const ENV_ATTACKS: Array<Record<string, string>> = [
    { LLAMA_ARG_LOG_FILE: '/tmp/svc-walk-victim' },
    { LLAMA_ARG_CHAT_TEMPLATE_FILE: '/etc/shadow', LLAMA_ARG_VERBOSITY: '10' },
    { PYTHONWARNINGS: 'ignore::antigravity.x', BROWSER: 'id' },
    { LLAMA_ARG_RPC: '10.0.0.9:50052' },
    { LLAMA_ARG_MODEL_URL: 'http://10.0.0.9/m.gguf' },
    { LD_PRELOAD: '/tmp/x.so' },
    { NODE_OPTIONS: '--require /tmp/x.js' },
    { CUDA_VISIBLE_DEVICES: '0 --log-file /tmp/x' },
    { OMP_NUM_THREADS: '$(id)' },
  ];
  const envKeys = (slot: string, env: Record<string, string>) => Object.keys(env).map((name) => `slots.${slot} server.env.${name}`).sort();

  it('keeps every engine variable but device lists and thread counts to the host, on create, edit and file', async () => {
    const slot = { name: 'envslot', model: 'tiny', device: 'cpu', provider: 'llama-server' };
    for (const env of ENV_ATTACKS) {
      const what = JSON.stringify(env);
      for (const [method, path, body, target] of [
        ['POST', '/api/slots', { ...slot, env }, 'envslot'], ['POST', '/api/slots', { ...slot, file: { server: { env } } }, 'envslot'],
        ['PUT', '/api/slots/chat', { env }, 'chat'], ['PUT', '/api/slots/chat', { file: { server: { env } } }, 'chat'],
      ] as const) {
        const before = file('slots/chat.toml');
        const answer = await fromLan(method, path, body);
        expect(refused(answer), `${method} ${path} ${what}`).toEqual([403, 'config.host_only']);
        expect([...answer.json.error.details.keys].sort(), what).toEqual(envKeys(target, env));
        expect(file('slots/envslot.toml'), what).toBeNull();
        expect(file('slots/chat.toml'), what).toBe(before);
      }
    }
  });

  it('takes device lists and thread counts from the LAN, anything from the host, and a LAN edit that keeps what the host set', async () => {
    const devices = { CUDA_VISIBLE_DEVICES: '0,1', HIP_VISIBLE_DEVICES: 'GPU-4a5b6c7d8e9f0a1b', GGML_VK_VISIBLE_DEVICES: '1', OMP_NUM_THREADS: '4' };
    const lanMade = await fromLan('POST', '/api/slots', { name: 'devslot', model: 'tiny', device: 'cpu', provider: 'llama-server', env: devices });
    expect(lanMade.status, lanMade.text).toBe(201);
    expect(file('slots/devslot.toml')).toContain('GPU-4a5b6c7d8e9f0a1b');
    const hostile = Object.assign({}, ...ENV_ATTACKS) as Record<string, string>;
    const hostMade = await fromHost('POST', '/api/slots', { name: 'hostenv', model: 'tiny', device: 'cpu', provider: 'llama-server', env: hostile });
    expect(hostMade.status, hostMade.text).toBe(201);
    expect(file('slots/hostenv.toml')).toContain('LLAMA_ARG_LOG_FILE');
    // Keeping every name and value the host set, and changing what the LAN may change, passes.
    const kept = await fromLan('PUT', '/api/slots/hostenv', { env: { ...hostile, OMP_NUM_THREADS: '2' }, ctx_size: 1024 });
    expect(kept.status, kept.text).toBe(200);
    const unrelated = await fromLan('PUT', '/api/slots/hostenv', { file: { slot: { load_timeout_s: 300 } } });
    expect(unrelated.status, unrelated.text).toBe(200);
    // A new value for a name the host set does not; nor does moving the slot to an engine that reads the variables differently.
    const written = file('slots/hostenv.toml');
    expect(refused(await fromLan('PUT', '/api/slots/hostenv', { env: { ...hostile, LLAMA_ARG_LOG_FILE: '/tmp/other' } }))).toEqual([403, 'config.host_only']);
    const moved = await fromLan('PUT', '/api/slots/hostenv', { provider: 'builtin' });
    expect(refused(moved)).toEqual([403, 'config.host_only']);
    expect(moved.json.error.details.keys).toContain('slots.hostenv server.env.NODE_OPTIONS');
    expect(file('slots/hostenv.toml')).toBe(written);
    // Removing passes.
    const fewer = Object.fromEntries(Object.entries({ ...hostile, OMP_NUM_THREADS: '2' }).filter(([name]) => name !== 'LLAMA_ARG_LOG_FILE'));
    const removed = await fromLan('PUT', '/api/slots/hostenv', { env: fewer });
    expect(removed.status, removed.text).toBe(200);
    expect(file('slots/hostenv.toml')).not.toContain('LLAMA_ARG_LOG_FILE');
  });

  it('keeps the API\'s own host-only settings to the host', async () => {
    for (const patch of [{ api: { max_body_mb: 4096 } }, { api: { public_hostnames: ['attacker.example'] } }, { api: { allowed_origins: ['http://attacker.example'] } }]) {
      expect(refused(await fromLan('PUT', '/api/settings', patch)), JSON.stringify(patch)).toEqual([403, 'config.host_only']);
    }
  });
});
