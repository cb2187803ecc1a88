// Stacks through the real gateway and CLI: the built-ins are immutable, user stacks are
// created, replaced and deleted in stacks.toml, a snapshot captures the live slots, and an
// export from one home imports on another, wrapped or as the file itself (a tampered
// envelope is refused). A built-in's dry run leads with the models this host cannot
// resolve; the list fits 100 columns.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runSvcAsync, startGateway, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';

let home: TempHome;
let gw: Gateway;
let other: TempHome;
let gw2: Gateway;

beforeAll(async () => {
  home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin', extra: 'profile = "mine"' }]);
  home.write('profiles.toml', '[profiles.mine]\nimage = ""\ndevice_class = "cpu"\nflags = "--parallel 2"\n');
  other = tempHome();
  [gw, gw2] = await Promise.all([startGateway(home.home, { env: { PATH: '/usr/bin:/bin' } }), startGateway(other.home)]);
}, 60_000);
afterAll(async () => {
  await Promise.all([gw?.stop(), gw2?.stop()]);
});

const send = (g: Gateway, method: string, path: string, body?: unknown) => api(g.url, path, { method, ...(body !== undefined && { body }) });
const row = { slot: 'chat', model: 'tiny', profile: 'mine', device: 'cpu', provider: 'builtin' };

describe('stacks', () => {
  it('lists the three built-ins, and refuses every write to them', async () => {
    const list = (await send(gw, 'GET', '/api/stacks')).json.stacks;
    expect(list.filter((s: { seed: boolean }) => s.seed).map((s: { slug: string }) => s.slug)).toEqual(['saber', 'forge', 'pi']);
    expect((await send(gw, 'GET', '/api/stacks/saber')).json.slots[0]).toMatchObject({ slot: 'agent', profile: 'rocm-moe', mtp: true, capabilities: [{ child: 'embed' }, { child: 'rerank' }] });
    for (const [method, body] of [['PUT', { name: 'x', slots: [] }], ['DELETE', undefined]] as const) {
      const answer = await send(gw, method, '/api/stacks/forge', body);
      expect([answer.status, answer.json.error.code], method).toEqual([409, 'stacks.seed_immutable']);
    }
    expect((await send(gw, 'POST', '/api/stacks', { slug: 'pi', name: 'mine', slots: [] })).json.error.code).toBe('stacks.exists');
    expect((await send(gw, 'GET', '/api/stacks/nope')).json.error.code).toBe('stacks.not_found');
  });

  it('creates, replaces and deletes a user stack in stacks.toml, refusing an invalid row by its field', async () => {
    const bad = await send(gw, 'POST', '/api/stacks', { slug: 'bad', name: 'bad', slots: [{ slot: 'Not A Slot', model: 'x' }] });
    expect([bad.status, bad.json.error.code]).toEqual([400, 'stacks.bad_envelope']);
    expect(bad.json.error.details.problems[0].path).toBe('slots[0].slot');
    const created = await send(gw, 'POST', '/api/stacks', { slug: 'home', name: 'Home', description: 'one chat slot', slots: [row] });
    expect(created.status, created.text).toBe(201);
    expect(readFileSync(join(home.configRoot, 'stacks.toml'), 'utf8')).toContain('[stack.home]');
    const replaced = await send(gw, 'PUT', '/api/stacks/home', { name: 'Home 2', slots: [row, { slot: 'voice', model: 'kokoro-v1', device: 'cpu' }] });
    expect(replaced.json).toMatchObject({ slug: 'home', name: 'Home 2', slots: [{ slot: 'chat' }, { slot: 'voice' }] });
    expect((await send(gw, 'DELETE', '/api/stacks/home')).json).toEqual({ deleted: 'home' });
    expect((await send(gw, 'GET', '/api/stacks/home')).status).toBe(404);
    const events = (await send(gw, 'GET', '/api/events?type=stack.*&limit=100')).json.events.map((e: { type: string }) => e.type);
    expect(events).toEqual(['stack.created', 'stack.updated', 'stack.deleted']);
  });

  it('a snapshot of the live slots exports from one home and imports on another; a tampered envelope is refused', async () => {
    const snap = await send(gw, 'POST', '/api/stacks/snapshot', { slug: 'now' });
    expect(snap.status, snap.text).toBe(201);
    expect(snap.json.slots).toEqual([expect.objectContaining({ slot: 'chat', model: 'tiny', profile: 'mine', device: 'cpu', provider: 'builtin' })]);
    const file = join(home.home, 'now.svcstack.json');
    const exported = await runSvcAsync(['stack', 'export', 'now', '--out', file], { home: home.home, env: { SVC_API_URL: gw.url } });
    expect(exported.status, exported.stderr).toBe(0);
    const envelope = JSON.parse(readFileSync(file, 'utf8'));
    expect(envelope).toMatchObject({ kind: 'svc.stack', schema_version: 1, checksum: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), stack: { slug: 'now', profiles: { mine: { flags: '--parallel 2' } }, models: { tiny: { id: 'tiny' } } } });
    const tampered = structuredClone(envelope);
    tampered.stack.slots[0].model = 'something-else';
    const refused = await send(gw2, 'POST', '/api/stacks/import', { envelope: tampered });
    expect([refused.status, refused.json.error.code]).toEqual([400, 'stacks.bad_envelope']);
    const newer = await send(gw2, 'POST', '/api/stacks/import', { envelope: { ...envelope, schema_version: 99 } });
    expect(newer.json.error.code).toBe('stacks.envelope_too_new');
    const imported = await runSvcAsync(['stack', 'import', file], { home: other.home, env: { SVC_API_URL: gw2.url } });
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('profiles added: mine');
    expect(imported.stdout).toContain('model tiny: unresolvable');
    const there = (await send(gw2, 'GET', '/api/stacks/now')).json;
    const here = (await send(gw, 'GET', '/api/stacks/now')).json;
    expect(there.slots).toEqual(here.slots);
    expect((await send(gw2, 'GET', '/api/profiles/mine')).json).toMatchObject({ flags: '--parallel 2', seed: false });
    // The same envelope again: the slug is taken; under another slug the profile is kept as it is.
    expect((await send(gw2, 'POST', '/api/stacks/import', { envelope })).json.error.code).toBe('stacks.exists');
    const again = await send(gw2, 'POST', '/api/stacks/import', { envelope, slug: 'now-2' });
    expect(again.json).toMatchObject({ profiles_added: [], profiles_kept: ['mine'] });
    writeFileSync(join(other.home, 'junk.json'), '{"kind":"something"}');
    const junk = await runSvcAsync(['stack', 'import', join(other.home, 'junk.json')], { home: other.home, env: { SVC_API_URL: gw2.url } });
    expect([junk.status, junk.stderr]).toEqual([1, expect.stringMatching(/^svc: stacks.bad_envelope/)]);
    const list = await runSvcAsync(['stack', 'list'], { home: other.home, env: { SVC_API_URL: gw2.url } });
    expect(list.stdout).toMatch(/now\s+user\s+now\s+chat\s/);
  });

  it('a built-in stack\'s dry run names each model this host cannot resolve before its plan; svc stack list fits 100 columns', async () => {
    const dry = (await send(gw, 'POST', '/api/stacks/saber/apply?dry_run=true')).json;
    const keys = Object.keys(dry);
    expect(keys.indexOf('unresolvable')).toBeGreaterThan(-1);
    expect(keys.indexOf('unresolvable')).toBeLessThan(keys.indexOf('changes'));
    expect(dry.unresolvable.map((m: { model: string; slots: string[] }) => [m.model, m.slots])).toEqual([
      ['qwen3-6-35b-a3b-nsc-ace-saber-mtp-f16-to-rocmfp4-strix-lean', ['agent']],
      ['gemma-4-12b-it-ud-q4-k-xl', ['utility']],
    ]);
    const cli = await runSvcAsync(['stack', 'apply', 'saber', '--dry-run'], { home: home.home, env: { SVC_API_URL: gw.url } });
    expect(cli.status).toBe(1);
    const lines = cli.stdout.split('\n');
    expect(lines[0]).toMatch(/^model qwen3-6-35b-a3b-nsc-ace-saber-mtp-f16-to-rocmfp4-strix-lean \(slot agent\) cannot be resolved on this host: .*svc model register qwen3-6-35b/);
    expect(lines[1]).toMatch(/^model gemma-4-12b-it-ud-q4-k-xl \(slot utility\) cannot be resolved on this host/);
    expect(lines[2]).toMatch(/^plan for stack saber: /);
    // Said once, up front: not again among the refusals at the end.
    expect(cli.stdout.match(/gemma-4-12b-it-ud-q4-k-xl \(slot utility\)/g)).toHaveLength(1);

    const list = await runSvcAsync(['stack', 'list'], { home: home.home, env: { SVC_API_URL: gw.url } });
    expect(list.status, list.stderr).toBe(0);
    // Columns as a terminal shows them: an emoji two, its variation selector none.
    const width = (line: string) => [...line].reduce((n, c) => n + (/\ufe0f/u.test(c) ? 0 : /\p{Extended_Pictographic}/u.test(c) ? 2 : 1), 0);
    const printed = list.stdout.trimEnd().split('\n');
    expect(printed.filter((line) => width(line) > 100)).toEqual([]);
    expect(printed[0]).toMatch(/^SLUG\s+KIND\s+NAME\s+SLOTS\s+DESCRIPTION$/);
    expect(list.stdout).toMatch(/saber\s+built-in\s+⚡ saber\s+agent \(\+embed,/);
    // Every word of a wrapped description is still there.
    expect(printed.join(' ').replace(/\s+/g, ' ')).toContain('on the ROCm GPU,');
  });

  it('imports the exported file itself as the body (curl --data-binary @file), its slug from ?slug=, with the envelope checks kept', async () => {
    expect((await send(gw, 'POST', '/api/stacks/snapshot', { slug: 'raw' })).status).toBe(201);
    const file = join(home.home, 'raw.svcstack.json');
    expect((await runSvcAsync(['stack', 'export', 'raw', '--out', file], { home: home.home, env: { SVC_API_URL: gw.url } })).status).toBe(0);
    const bytes = readFileSync(file, 'utf8');
    const post = (path: string, raw: string) => api(gw2.url, path, { method: 'POST', raw, headers: { 'content-type': 'application/json' } });
    const imported = await post('/api/stacks/import', bytes);
    expect(imported.status, imported.text).toBe(201);
    expect(imported.json.stack).toMatchObject({ slug: 'raw', slots: [expect.objectContaining({ slot: 'chat', model: 'tiny' })] });
    const renamed = await post('/api/stacks/import?slug=raw-2', bytes);
    expect([renamed.status, renamed.json.stack?.slug]).toEqual([201, 'raw-2']);
    // The same checks as the wrapped form: a taken slug, a changed stack, an invalid slug.
    expect((await post('/api/stacks/import', bytes)).json.error.code).toBe('stacks.exists');
    const changed = bytes.replace('"model": "tiny"', '"model": "other"');
    expect(changed).not.toBe(bytes);
    const tampered = await post('/api/stacks/import?slug=raw-3', changed);
    expect([tampered.status, tampered.json.error.code]).toEqual([400, 'stacks.bad_envelope']);
    expect((await post('/api/stacks/import?slug=Not%20A%20Slug', bytes)).json.error.code).toBe('request.invalid');
    const both = await post('/api/stacks/import?slug=raw-4', JSON.stringify({ envelope: JSON.parse(bytes), slug: 'raw-5' }));
    expect([both.status, both.json.error.code]).toEqual([400, 'request.invalid']);
  });
});
