// `svc memory migrate --from hindsight` end to end (docs/memory.md, "Moving from Hindsight"):
// the fixture daemon (test/fixtures/hindsight-daemon.mjs, the daemon's REST API with a bearer
// key) holds banks; a real gateway on the embedded pgvector engine with the built-in engine's
// embedding slot copies them, embedding each text again. A dry-run counts and writes nothing;
// --apply copies (--agent narrows it), a second run skips what it copied; --resume goes on
// from the state file's offsets.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Gateway, runSvcAsync, startGateway, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { type DaemonFixture, startMemoryFixture } from './helpers/memory-daemons.js';

const KEY = 'fixture-key';
let home: TempHome;
let gw: Gateway;
let daemon: DaemonFixture;
const call = (method: string, path: string, body?: unknown) => api(gw.url, path, { method, body });
const migrate = (...args: string[]) => runSvcAsync(['memory', 'migrate', '--from', 'hindsight', ...args], { home: home.home, env: { SVC_API_URL: gw.url } });
const stateFile = () => join(home.stateRoot, 'memory', 'migrate-state.json');
const items = async (bank: string) => ((await call('GET', `/api/memory/banks/${bank}/memories?limit=100`)).json.items ?? []) as Array<{ text: string; tags: string[]; dataset: string | null }>;
const SHARED = ['the harbour master logs each ship', `hermes noted the tide tables '; DROP TABLE memory_items; --`, 'the lighthouse lamp was cleaned'];
const PRIVATE = ['hermes keeps the spare key under the mat', 'hermes dislikes fog'];

async function retain(bank: string, texts: string[], extra: Array<Record<string, unknown>> = []): Promise<void> {
  const body = { items: texts.map((content, i) => ({ content, document_id: `${bank}-${i}`, timestamp: new Date(Date.UTC(2026, 0, i + 1)).toISOString(), ...extra[i] })), async: true };
  const answer = await api(daemon.url, `/v1/default/banks/${bank}/memories`, { method: 'POST', body, headers: { authorization: `Bearer ${KEY}` } });
  expect(answer.status, answer.text).toBe(200);
}

beforeAll(async () => {
  daemon = await startMemoryFixture('hindsight', { key: KEY });
  await retain('shared', SHARED, [{ tags: ['agent:anonymous'] }, { tags: ['agent:hermes'], context: 'tides' }, {}]);
  await retain('private__hermes', PRIVATE, [{ tags: ['agent:hermes', 'visibility:private'] }, { tags: ['agent:hermes', 'visibility:private'] }]);
  home = await homeWithTinySlots([{ name: 'embed', provider: 'builtin', type: 'embedding' }]);
  home.write('svc.toml', `[memory]\nengine = "pgvector"\nhindsight_url = "${daemon.url}"\n`);
  gw = await startGateway(home.home, { env: { SVC_HINDSIGHT_API_KEY: KEY } });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await daemon?.stop();
});

describe('svc memory migrate --from hindsight', () => {
  it('the dry-run counts each bank and writes nothing', async () => {
    const plan = await migrate('--json');
    expect(plan.status, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout)).toMatchObject({ from: 'hindsight', to: 'pgvector', dry_run: true, banks: [{ bank: 'private__hermes', items: 2 }, { bank: 'shared', items: 3 }], totals: { items: 5, added: 0 } });
    const text = await migrate();
    expect(text.stdout).toContain('memory · migrate hindsight → pgvector (dry-run)');
    expect(text.stdout).toContain('This is a plan only — nothing was written');
    expect((await call('GET', '/api/memory/banks')).json.banks).toEqual([]);
    expect(existsSync(stateFile())).toBe(false);
  }, 180_000);

  it('--apply --agent copies that agent\'s memories, embedded again; a run without it copies the rest and skips those', async () => {
    const hermes = await migrate('--apply', '--agent', 'hermes', '--json');
    expect(hermes.status, hermes.stderr).toBe(0);
    expect(JSON.parse(hermes.stdout)).toMatchObject({ dry_run: false, totals: { items: 3, added: 3, skipped: 0 } });
    expect((await items('private__hermes')).map((i) => i.text).sort()).toEqual([...PRIVATE].sort());
    const shared = await items('shared');
    expect(shared).toEqual([expect.objectContaining({ text: SHARED[1], dataset: 'tides', tags: ['agent:hermes'] })]);

    const all = await migrate('--apply', '--json');
    expect(JSON.parse(all.stdout)).toMatchObject({ totals: { items: 5, added: 2, skipped: 3 } });
    expect((await items('shared')).map((i) => i.text).sort()).toEqual([...SHARED].sort());
    const found = await call('POST', '/api/memory/search', { query: SHARED[2], limit: 3 });
    expect(found.json.items[0].text).toBe(SHARED[2]);
    const state = JSON.parse(readFileSync(stateFile(), 'utf8'));
    expect(state.banks).toMatchObject({ shared: { offset: 3, done: true }, private__hermes: { offset: 2, done: true } });
    expect(JSON.stringify((await call('GET', '/api/activity?action=memory.migrate&limit=5')).json)).toContain('private__hermes');
  }, 180_000);

  it('--resume goes on at the offsets of the state file: what came before them is not copied again', async () => {
    expect((await call('DELETE', '/api/memory/banks/shared?confirm=shared')).status).toBe(200);
    writeFileSync(stateFile(), JSON.stringify({ from: 'hindsight', banks: { private__hermes: { offset: 2, done: true, added: 2, skipped: 0 }, shared: { offset: 1, done: false, added: 1, skipped: 0 } }, updated_at: new Date().toISOString() }));
    const resumed = await migrate('--apply', '--resume', '--json');
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ resumed: true, banks: [{ bank: 'private__hermes', done: true }, { bank: 'shared', offset: 3, done: true, added: 3 }] });
    expect((await items('shared')).map((i) => i.text).sort()).toEqual([SHARED[1], SHARED[2]].sort());
  }, 180_000);

  it('refuses --resume without a state file, and --from an engine it does not offer', async () => {
    const { rmSync } = await import('node:fs');
    rmSync(stateFile());
    const nothing = await call('POST', '/api/memory/migrate/hindsight', { apply: true, resume: true });
    expect(nothing.status).toBe(400);
    expect(nothing.json.error.code).toBe('request.invalid');
    const honcho = await runSvcAsync(['memory', 'migrate', '--from', 'honcho'], { home: home.home, env: { SVC_API_URL: gw.url } });
    expect(honcho.status).toBe(2); // a usage error: hindsight is the one choice offered (--help lists it)
    expect(honcho.stderr).toContain('Allowed choices are hindsight');
    expect((await call('POST', '/api/memory/migrate/hindsight', { since: 'yesterday' })).json.error.code).toBe('request.invalid');
  });
});
