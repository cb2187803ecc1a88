// Profile management through the real gateway and CLI: seeds immutable, validation naming
// the field, clone, in-use protection, and an update that restarts the slots using it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runSvcAsync, startGateway, type Gateway, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';

let home: TempHome;
let gw: Gateway;
const profilesToml = () => readFileSync(join(home.configRoot, 'profiles.toml'), 'utf8');

beforeAll(async () => {
  home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin', extra: 'profile = "mine"' }]);
  home.write('profiles.toml', '[profiles.mine]\nimage = ""\ndevice_class = "cpu"\nflags = "--parallel 1"\n');
  gw = await startGateway(home.home, { env: { PATH: '/usr/bin:/bin' } });
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

const send = (method: string, path: string, body?: unknown) => api(gw.url, path, { method, ...(body !== undefined && { body }) });

describe('profiles', () => {
  it('refuses every write to a seed, pointing at clone; a clone of a seed is a user profile', async () => {
    const before = profilesToml();
    for (const [method, path, body] of [['PUT', '/api/profiles/rocm', { flags: '-fa off' }], ['DELETE', '/api/profiles/rocm', undefined]] as const) {
      const answer = await send(method, path, body);
      expect([answer.status, answer.json.error.code], method).toEqual([409, 'profiles.seed_immutable']);
      expect(answer.json.error.message).toContain('clone');
    }
    const taken = await send('POST', '/api/profiles', { name: 'rocm', image: '', device_class: 'cpu' });
    expect([taken.status, taken.json.error.code]).toEqual([409, 'profiles.exists']);
    expect(profilesToml()).toBe(before);
    const clone = await send('POST', '/api/profiles/rocm/clone', { name: 'my-rocm' });
    expect(clone.status, clone.text).toBe(201);
    expect(clone.json).toMatchObject({ name: 'my-rocm', seed: false, cloned_from: 'rocm', device_class: 'gpu', backend: 'rocm', serves: ['llm'] });
    expect(profilesToml()).toContain('[profiles.my-rocm]');
    const edited = await send('PUT', '/api/profiles/my-rocm', { flags: '-fa on -b 256' });
    expect(edited.json).toMatchObject({ profile: { flags: '-fa on -b 256', cloned_from: 'rocm' }, slots: [], restarted: [] });
  });

  it('refuses a profile that carries what the slot supplies, or an incoherent class, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ flags: '--port 9000 -fa on' }, 'profiles.bad.flags', /--port: where an engine listens is svc's own/],
      [{ flags: '--reuse_port' }, 'profiles.bad.flags', /--reuse_port: where an engine listens is svc's own/],
      [{ flags: '-c 4096' }, 'profiles.bad.flags', /-c is supplied by the slot/],
      [{ flags: '--ctx-size=8192' }, 'profiles.bad.flags', /--ctx-size is supplied by the slot/],
      [{ flags: '--jinja "unterminated' }, 'profiles.bad.flags', /cannot split into arguments/],
      [{ device_class: 'gpu' }, 'profiles.bad.backend', /a gpu profile names its backend/],
      [{ device_class: 'cpu', backend: 'vulkan' }, 'profiles.bad.backend', /has no GPU backend/],
    ];
    for (const [fields, path, message] of cases) {
      const answer = await send('POST', '/api/profiles', { name: 'bad', image: '', device_class: 'cpu', ...fields });
      expect([answer.status, answer.json.error.code], JSON.stringify(fields)).toEqual([400, 'config.invalid']);
      expect(answer.json.error.details.problems, JSON.stringify(fields)).toContainEqual({ file: 'profiles.toml', path, message: expect.stringMatching(message) });
    }
    const missing = await send('POST', '/api/profiles', { name: 'bad', device_class: 'cpu' });
    expect([missing.status, missing.json.error.code]).toEqual([400, 'request.invalid']);
    expect((await send('GET', '/api/profiles/bad')).status).toBe(404);
  });

  it('will not delete a profile a slot uses unless forced, and an update restarts its running slots on request', async () => {
    const inUse = await send('DELETE', '/api/profiles/mine');
    expect([inUse.status, inUse.json.error.code, inUse.json.error.details.slots]).toEqual([409, 'profiles.in_use', ['chat']]);
    expect((await send('GET', '/api/profiles/mine')).json.used_by).toEqual(['chat']);
    expect((await send('POST', '/api/slots/chat/load')).status).toBe(200);
    const pid = (await send('GET', '/api/slots/chat')).json.pid;
    const later = await send('PUT', '/api/profiles/mine', { intent: 'tuned' });
    expect(later.json).toMatchObject({ slots: ['chat'], restarted: [] });
    expect((await send('GET', '/api/slots/chat')).json.pid).toBe(pid);
    const now = await send('PUT', '/api/profiles/mine?restart=true', { quant: 'Q8_0' });
    expect(now.json).toMatchObject({ slots: ['chat'], restarted: ['chat'], profile: { intent: 'tuned', quant: 'Q8_0' } });
    const after = (await send('GET', '/api/slots/chat')).json;
    expect([after.state, after.pid === pid]).toEqual(['ready', false]);
    const events = (await send('GET', '/api/events?type=profile.*&limit=100')).json.events.map((e: { type: string }) => e.type);
    expect(events).toEqual(expect.arrayContaining(['profile.created', 'profile.updated']));
  }, 60_000);

  it('the CLI creates, lists, shows, edits, clones and deletes', async () => {
    const env = { SVC_API_URL: gw.url };
    const run = (...args: string[]) => runSvcAsync(args, { home: home.home, env });
    const created = await run('profile', 'create', 'cli-one', '--device-class', 'cpu', '--flags', '--threads 2', '--intent', 'from the CLI');
    expect(created.status, created.stderr).toBe(0);
    expect((await run('profile', 'list')).stdout).toMatch(/cli-one\s+user\s+cpu\s+llm\s+-\s+from the CLI/);
    expect((await run('profile', 'show', 'cli-one')).stdout).toMatch(/flags\s+--threads 2/);
    expect((await run('profile', 'edit', 'cli-one', '--flags', '--threads 4')).status).toBe(0);
    expect(JSON.parse((await run('profile', 'show', 'cli-one', '--json')).stdout)).toMatchObject({ flags: '--threads 4' });
    const seed = await run('profile', 'edit', 'vulkan', '--flags', '-fa off');
    expect([seed.status, seed.stderr]).toEqual([1, expect.stringMatching(/^svc: profiles.seed_immutable: /)]);
    expect((await run('profile', 'clone', 'cli-one', 'cli-two')).stdout).toContain('cloned profile cli-one to cli-two');
    expect((await run('profile', 'delete', 'cli-two')).status).toBe(0);
    const gone = await run('profile', 'show', 'cli-two');
    expect([gone.status, gone.stderr]).toEqual([1, expect.stringMatching(/^svc: profiles.not_found/)]);
  });
});
