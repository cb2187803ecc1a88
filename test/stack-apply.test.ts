// Stack apply through the real gateway on built-in engines and the tiny models: a dry run
// plans, writes nothing, and matches what the apply then does (one slot created, one
// swapped, one unloaded); a guard that fails leaves every file byte-identical; the active
// stack drifts when a slot is edited; export on one home, import and apply on another give
// the same slots.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runSvcAsync, startGateway, type Gateway, type TempHome } from './helpers/gateway.js';
import { commitOf, startHf, TINY } from './helpers/hf.js';
import { homeWithTinySlots, tinyModel } from './helpers/llama.js';

let home: TempHome;
let gw: Gateway;
let other: TempHome;
let gw2: Gateway;

/** A second model, so a swap changes something: registered beside `tiny` as `tiny2`. */
async function withSecondModel(h: TempHome): Promise<void> {
  const path = await tinyModel(join(h.home, 'models'), 'tiny2.gguf', 7);
  const registry = join(h.stateRoot, 'registry/registry.toml');
  writeFileSync(registry, `${readFileSync(registry, 'utf8')}\n[models.tiny2]\npath = ${JSON.stringify(path)}\n`);
}

/** Every file under the config root and the state's stacks folder, by name: what "nothing written" compares. */
function snapshotFiles(h: TempHome): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(h.configRoot, 'slots'))) out[`slots/${name}`] = readFileSync(join(h.configRoot, 'slots', name), 'utf8');
  for (const name of ['capabilities.toml', 'stacks.toml']) if (existsSync(join(h.configRoot, name))) out[name] = readFileSync(join(h.configRoot, name), 'utf8');
  out.active = existsSync(join(h.stateRoot, 'stacks/active.json')) ? readFileSync(join(h.stateRoot, 'stacks/active.json'), 'utf8') : '(none)';
  return out;
}

const cpu = { device: 'cpu', provider: 'builtin' };
const send = (g: Gateway, method: string, path: string, body?: unknown) => api(g.url, path, { method, ...(body !== undefined && { body }) });
const stateOf = async (g: Gateway, slot: string) => (await send(g, 'GET', `/api/slots/${slot}`)).json as { state: string; model: string };

beforeAll(async () => {
  home = await homeWithTinySlots([
    { name: 'swapme', provider: 'builtin' },
    { name: 'gone', provider: 'builtin' },
    { name: 'idle', provider: 'builtin', extra: 'enabled = false' },
  ]);
  other = await homeWithTinySlots([]);
  await Promise.all([withSecondModel(home), withSecondModel(other)]);
  [gw, gw2] = await Promise.all([startGateway(home.home), startGateway(other.home)]);
}, 60_000);
afterAll(async () => {
  await Promise.all([gw?.stop(), gw2?.stop()]);
});

describe('stack apply', () => {
  it('plans with dry_run (writing nothing), then creates one slot, swaps another and unloads a third as planned', async () => {
    // Enabled slots start with the gateway; a load waits until each is ready.
    for (const slot of ['swapme', 'gone']) expect((await send(gw, 'POST', `/api/slots/${slot}/load`)).json.state).toBe('ready');

    const stack = { slug: 'work', name: 'Work', slots: [{ slot: 'swapme', model: 'tiny2', ...cpu }, { slot: 'fresh', model: 'tiny', role: 'primary', ...cpu }] };
    expect((await send(gw, 'POST', '/api/stacks', stack)).status).toBe(201);
    const before = snapshotFiles(home);
    const plan = await send(gw, 'POST', '/api/stacks/work/apply?dry_run=true');
    expect(plan.status, plan.text).toBe(200);
    expect(plan.json).toMatchObject({ stack: 'work', dry_run: true, creates: ['fresh'], unloads: ['gone'] });
    const bySlot = Object.fromEntries(plan.json.changes.map((c: { slot: string }) => [c.slot, c]));
    expect(bySlot.swapme).toMatchObject({ action: 'edit', runtime: 'swap', before_model: 'tiny', after_model: 'tiny2', changed: true });
    expect(bySlot.fresh).toMatchObject({ action: 'create', runtime: 'load', before_model: null, after_model: 'tiny' });
    expect(plan.json.models).toEqual([{ id: 'tiny2', status: 'present' }, { id: 'tiny', status: 'present' }]);
    expect(plan.json.memory.needed_mb).toBeGreaterThanOrEqual(0);
    expect(snapshotFiles(home)).toEqual(before);

    const applied = await send(gw, 'POST', '/api/stacks/work/apply');
    expect(applied.status, applied.text).toBe(200);
    expect(applied.json.changes).toEqual(plan.json.changes);
    const did = Object.fromEntries(applied.json.results.map((r: { slot: string; runtime: string }) => [r.slot, r.runtime]));
    expect(did).toEqual({ gone: 'unload', swapme: 'swap', fresh: 'load' });
    expect(applied.json.results.every((r: { ok: boolean }) => r.ok), applied.text).toBe(true);
    expect(await stateOf(gw, 'swapme')).toMatchObject({ state: 'ready', model: 'tiny2' });
    expect(await stateOf(gw, 'fresh')).toMatchObject({ state: 'ready', model: 'tiny' });
    expect((await stateOf(gw, 'gone')).state).toBe('stopped');
    expect((await stateOf(gw, 'idle')).state).toBe('disabled');
    expect(readFileSync(join(home.configRoot, 'slots/swapme.toml'), 'utf8')).toMatch(/default = "tiny2"/);
    expect(readFileSync(join(home.configRoot, 'slots/fresh.toml'), 'utf8')).toMatch(/role = "primary"/);
    const chat = await send(gw, 'POST', '/v1/chat/completions', { model: 'tiny2', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
    expect(chat.status, chat.text).toBe(200);

    const events = (await send(gw, 'GET', '/api/events?type=stack.apply.*&limit=100')).json.events.map((e: { type: string; data: { slot?: string } }) => `${e.type}${e.data.slot ? `:${e.data.slot}` : ''}`);
    expect(events[0]).toBe('stack.apply.started');
    expect(events[1]).toBe('stack.apply.committed');
    expect(events.slice(2, -1).sort()).toEqual(['stack.apply.slot:fresh', 'stack.apply.slot:gone', 'stack.apply.slot:swapme']);
    expect(events.at(-1)).toBe('stack.apply.completed');
    const slotEvents = (await send(gw, 'GET', '/api/events?type=slot.created,slot.edited&limit=100')).json.events.map((e: { type: string; data: { slot: string } }) => `${e.type}:${e.data.slot}`);
    expect(slotEvents).toEqual(expect.arrayContaining(['slot.created:fresh', 'slot.edited:swapme']));
  }, 120_000);

  it('says whether the live slots drifted from the applied stack', async () => {
    const active = await send(gw, 'GET', '/api/stacks/active');
    expect(active.json).toMatchObject({ status: 'clean', stack: 'work', drifted: [] });
    expect(active.json.hash).toBe(active.json.current_hash);
    expect((await send(gw, 'PUT', '/api/slots/fresh', { ctx_size: 1024 })).status).toBe(200);
    expect((await send(gw, 'GET', '/api/stacks/active')).json).toMatchObject({ status: 'modified', stack: 'work', drifted: ['fresh'] });
    const cli = await runSvcAsync(['stack', 'active'], { home: home.home, env: { SVC_API_URL: gw.url } });
    expect(cli.stdout).toContain('work');
    expect(cli.stdout).toContain('modified; drifted: fresh');
  });

  it('an apply refused by a guard writes nothing and says every reason', async () => {
    const bad = { slug: 'bad', name: 'Bad', slots: [
      { slot: 'swapme', model: 'tiny', profile: 'rocm', device: 'cpu', provider: 'builtin' },
      { slot: 'ghost', model: 'no-such-model', ...cpu },
      { slot: 'fresh', model: 'tiny', role: 'primary', ...cpu },
      { slot: 'also', model: 'tiny', role: 'primary', ...cpu },
    ] };
    expect((await send(gw, 'POST', '/api/stacks', bad)).status).toBe(201);
    const before = snapshotFiles(home);
    const dry = await send(gw, 'POST', '/api/stacks/bad/apply?dry_run=true');
    expect(dry.json.problems.map((p: { guard: string }) => p.guard).sort()).toEqual(['default_unique', 'device_profile', 'model']);
    const refused = await send(gw, 'POST', '/api/stacks/bad/apply');
    expect([refused.status, refused.json.error.code]).toEqual([400, 'slot.config_error']);
    expect(refused.json.error.message).toContain('profile rocm');
    expect(refused.json.error.details.problems).toHaveLength(3);
    expect(snapshotFiles(home)).toEqual(before);
    expect((await stateOf(gw, 'swapme')).model).toBe('tiny2');
    const cli = await runSvcAsync(['stack', 'apply', 'bad'], { home: home.home, env: { SVC_API_URL: gw.url } });
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain('slot.config_error');
  });

  it('exports on one home, imports on another, and applies to the same slots', async () => {
    const dir = other.home;
    const out = join(dir, 'work.svcstack.json');
    expect((await runSvcAsync(['stack', 'export', 'work', '--out', out], { home: home.home, env: { SVC_API_URL: gw.url } })).status).toBe(0);
    const imported = await runSvcAsync(['stack', 'import', out, '--json'], { home: other.home, env: { SVC_API_URL: gw2.url } });
    expect(imported.status, imported.stderr).toBe(0);
    const dry = await runSvcAsync(['stack', 'apply', 'work', '--dry-run'], { home: other.home, env: { SVC_API_URL: gw2.url } });
    expect(dry.stdout).toContain('plan for stack work: 2 created');
    const applied = await runSvcAsync(['stack', 'apply', 'work', '--json'], { home: other.home, env: { SVC_API_URL: gw2.url } });
    expect(applied.status, applied.stderr).toBe(0);
    const fields = (h: TempHome, slot: string) => {
      const text = readFileSync(join(h.configRoot, `slots/${slot}.toml`), 'utf8');
      return ['default', 'device', 'provider', 'role', 'profile'].map((k) => text.match(new RegExp(`^${k} = .*$`, 'm'))?.[0] ?? `${k} unset`);
    };
    for (const slot of ['swapme', 'fresh']) expect(fields(other, slot)).toEqual(fields(home, slot));
    expect((await stateOf(gw2, 'fresh')).state).toBe('ready');
    expect((await send(gw2, 'GET', '/api/stacks/active')).json.status).toBe('clean');
  }, 120_000);
});

describe('stack apply with models to pull', () => {
  it('a catalogue model not here yet is pullable; the apply fails its slot without --pull, and pulls it then starts the slot with it', async () => {
    const hf = await startHf({ 'Qwen/Qwen3-0.6B-GGUF': { commit: commitOf('9'), files: { 'Qwen3-0.6B-Q8_0.gguf': TINY } } });
    const h = await homeWithTinySlots([]);
    const g = await startGateway(h.home, { env: { SVC_HF_ENDPOINT: hf.url } });
    try {
      expect((await send(g, 'POST', '/api/stacks', { slug: 'small', name: 'Small', slots: [{ slot: 'small', model: 'qwen3-0.6b', ...cpu }] })).status).toBe(201);
      const plan = await send(g, 'POST', '/api/stacks/small/apply?dry_run=true');
      expect(plan.json.models).toEqual([{ id: 'qwen3-0.6b', status: 'pullable' }]);
      const without = await send(g, 'POST', '/api/stacks/small/apply');
      expect(without.json.results).toEqual([expect.objectContaining({ slot: 'small', runtime: 'load', ok: false, error: expect.objectContaining({ code: 'slot.model_missing' }) })]);
      const cli = await runSvcAsync(['stack', 'apply', 'small', '--pull'], { home: h.home, env: { SVC_API_URL: g.url } });
      expect(cli.status, cli.stdout + cli.stderr).toBe(0);
      expect(cli.stdout).toContain('model qwen3-0.6b: pullable (pulled by this apply)');
      expect(await stateOf(g, 'small')).toMatchObject({ state: 'ready', model: 'qwen3-0.6b' });
      expect((await send(g, 'GET', '/api/models/qwen3-0.6b')).status).toBe(200);
    } finally {
      await g.stop();
      await hf.close();
    }
  }, 120_000);
});
