// Model pulls through the real gateway from a Hugging Face endpoint of our own
// (test/fixtures/hf-endpoint.mjs): the cache layout, the registry entry, gated repos and the
// token, checksums, split files and mmproj, the fit check, the cap, hostile file lists, and
// a pulled model answering the openai client.
import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, runSvcAsync, startGateway, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';
import { commitOf, paddedGguf, pull, settled, startHf, TINY, type HfEndpoint } from './helpers/hf.js';
import { freePoolPort, freeSlotPort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

const mmproj = paddedGguf(300_000);
const parts = [paddedGguf(200_000), paddedGguf(150_000), paddedGguf(100_000)];
const huge = paddedGguf(400_000, { context: 1_048_576, layers: 4096, embedding: 65536 });
let hf: HfEndpoint;

beforeAll(async () => {
  hf = await startHf({
    'org/tiny-GGUF': { commit: commitOf('a'), files: { 'tiny-Q4_K_M.gguf': TINY, 'tiny-Q8_0.gguf': TINY, 'README.md': Buffer.from('# tiny\n') } },
    'org/gated-GGUF': { commit: commitOf('b'), files: { 'g-Q4_K_M.gguf': TINY }, gated: true },
    'org/vision-GGUF': {
      commit: commitOf('c'),
      files: {
        'Q4_K_M/v-Q4_K_M-00001-of-00003.gguf': parts[0]!, 'Q4_K_M/v-Q4_K_M-00002-of-00003.gguf': parts[1]!, 'Q4_K_M/v-Q4_K_M-00003-of-00003.gguf': parts[2]!,
        'mmproj-F16.gguf': paddedGguf(10_000), 'Q4_K_M/mmproj-Q8_0.gguf': mmproj,
      },
    },
    'org/huge-GGUF': { commit: commitOf('d'), files: { 'huge-Q4_K_M.gguf': huge } },
    'org/paged-GGUF': { commit: commitOf('7'), pageSize: 2, files: { 'a.md': Buffer.from('a'), 'b.md': Buffer.from('b'), 'c.md': Buffer.from('c'), 'd.md': Buffer.from('d'), 'p-Q4_K_M.gguf': TINY } },
    // The catalogue's nomic-embed-text-v1.5 names this repo and quant.
    'nomic-ai/nomic-embed-text-v1.5-GGUF': { commit: commitOf('f'), files: { 'nomic-embed-text-v1.5.Q8_0.gguf': TINY, 'nomic-embed-text-v1.5.f16.gguf': TINY } },
    'org/evil-GGUF': { commit: commitOf('e'), files: { 'x-Q4_K_M.gguf': TINY }, extraTree: [{ type: 'file', oid: 'f'.repeat(40), size: 5, path: '../../../evil-Q8_0.gguf', lfs: { oid: 'f'.repeat(64), size: 5 } }] },
  });
});
afterAll(() => hf?.close());

const gateways: Gateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.stop()));
  hf.faults.corrupt = false;
  hf.faults.bytesPerSecond = 0;
});

async function gateway(env: Record<string, string> = {}, toml = ''): Promise<{ home: TempHome; gw: Gateway; store: string }> {
  const home = tempHome(toml ? { 'svc.toml': toml } : {});
  const gw = await startGateway(home.home, { env: { SVC_HF_ENDPOINT: hf.url, ...env } });
  gateways.push(gw);
  return { home, gw, store: join(home.stateRoot, 'models') };
}

describe('svc model pull', () => {
  it('pulls org/repo:QUANT into the Hugging Face cache layout and registers it', async () => {
    const { home, gw, store } = await gateway();
    const started = await pull(gw, 'tiny', { ref: 'org/tiny-GGUF:Q8_0' });
    expect(started.status).toBe(202);
    expect(started.json).toMatchObject({ model_id: 'tiny', state: expect.stringMatching(/queued|resolving/) });
    const job = await settled(gw, 'tiny');
    expect(job).toMatchObject({ state: 'done', bytes_total: TINY.length, bytes_done: TINY.length, bytes_fetched: TINY.length, sha256: hf.sha256(TINY), commit: commitOf('a'), error: null });
    const folder = join(store, 'models--org--tiny-GGUF');
    const link = join(folder, 'snapshots', commitOf('a'), 'tiny-Q8_0.gguf');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(`../../blobs/${hf.sha256(TINY)}`);
    expect(readFileSync(link).equals(TINY)).toBe(true);
    expect(readFileSync(join(folder, 'refs/main'), 'utf8')).toBe(commitOf('a'));
    expect(readdirSync(join(folder, 'blobs'))).toEqual([hf.sha256(TINY)]);
    const model = (await api(gw.url, '/api/models/tiny')).json;
    expect(model).toMatchObject({ id: 'tiny', path: link, source: 'pull', hf_repo: 'org/tiny-GGUF', hf_filename: 'tiny-Q8_0.gguf', sha256: hf.sha256(TINY), commit: commitOf('a'), quant: 'Q8_0', architecture: 'llama', context_length: 32768, size_bytes: TINY.length, present: true });
    expect(readFileSync(join(home.stateRoot, 'registry/registry.toml'), 'utf8')).toContain('hf_repo = "org/tiny-GGUF"');
    // Pulling again fetches nothing.
    await pull(gw, 'tiny', { ref: 'org/tiny-GGUF:Q8_0' });
    expect(await settled(gw, 'tiny')).toMatchObject({ state: 'done', bytes_fetched: 0 });
    const events = (await api(gw.url, '/api/events?type=pull.*&limit=100')).json.events.map((e: { type: string }) => e.type);
    expect(events).toEqual(expect.arrayContaining(['pull.queued', 'pull.started', 'pull.completed']));
  });

  it('the CLI derives the id, prints the plan with --dry-run and follows the job', async () => {
    const { home, gw } = await gateway();
    const env = { SVC_API_URL: gw.url };
    const dry = await runSvcAsync(['model', 'pull', 'org/tiny-GGUF', '--dry-run'], { home: home.home, env });
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('tiny-Q4_K_M.gguf');
    expect(dry.stdout).toContain(hf.sha256(TINY));
    expect(dry.stdout).toMatch(/architecture llama {3}native context 32768 {3}layers 2/);
    expect(dry.stdout).toMatch(/: fits/);
    expect((await api(gw.url, '/api/models/tiny')).status).toBe(404);
    const pulled = await runSvcAsync(['model', 'pull', 'org/tiny-GGUF'], { home: home.home, env });
    expect(pulled.status, pulled.stderr).toBe(0);
    expect(pulled.stdout).toMatch(/^pulled tiny: .*tiny-Q4_K_M\.gguf \(632\.\d KiB, sha256 [0-9a-f]{12}\)/m);
    expect(pulled.stderr).toContain('tiny: done'); // plain progress lines when not on a terminal
    const json = await runSvcAsync(['model', 'pull', 'org/tiny-GGUF:Q8_0', '--json'], { home: home.home, env });
    expect(JSON.parse(json.stdout)).toMatchObject({ model_id: 'tiny-q8_0', state: 'done' });
    // --slot makes the pulled model a slot's default.
    const slot = await api(gw.url, '/api/slots', { method: 'POST', body: { name: 'chat', model: 'tiny', provider: 'builtin', device: 'cpu', port: await freeSlotPort() } });
    expect(slot.status, slot.text).toBe(201);
    const assigned = await runSvcAsync(['model', 'pull', 'org/tiny-GGUF/tiny-Q8_0.gguf', '--id', 'eight', '--slot', 'chat'], { home: home.home, env });
    expect(assigned.status, assigned.stderr).toBe(0);
    expect(assigned.stdout).toContain('assigned eight to slot chat (was tiny)');
    expect((await api(gw.url, '/api/models/eight')).json.used_by).toEqual(['chat']);
    const bad = await runSvcAsync(['model', 'pull', 'org/../x'], { home: home.home, env });
    expect(bad.status).toBe(2);
    const missing = await runSvcAsync(['model', 'pull', 'org/tiny-GGUF:Q5_K_M'], { home: home.home, env });
    expect([missing.status, missing.stderr]).toEqual([1, expect.stringMatching(/model\.pull_not_found: .*no GGUF in the repo matches the quant Q5_K_M; it has tiny-Q4_K_M.gguf, tiny-Q8_0.gguf/)]);
    const search = await runSvcAsync(['model', 'search', 'tiny'], { home: home.home, env });
    expect(search.stdout).toMatch(/org\/tiny-GGUF\s+1000\s+Q4_K_M:632\.\d KiB Q8_0:632\.\d KiB/);
  });

  it('a gated repo: model.pull_gated without HF_TOKEN; with it, the token goes to the endpoint and never to the CDN', async () => {
    const without = await gateway();
    await pull(without.gw, 'g', { ref: 'org/gated-GGUF' });
    expect(await settled(without.gw, 'g')).toMatchObject({ state: 'failed', error: { code: 'model.pull_gated', message: expect.stringContaining('HF_TOKEN') } });
    const before = hf.stats.cdnRequests.length;
    const { gw } = await gateway({ HF_TOKEN: hf.token });
    await pull(gw, 'g', { ref: 'org/gated-GGUF' });
    expect(await settled(gw, 'g')).toMatchObject({ state: 'done' });
    const cdn = hf.stats.cdnRequests.slice(before);
    expect(cdn.length).toBeGreaterThan(0);
    expect(cdn.every((r) => r.authorization === null)).toBe(true);
    expect(hf.stats.apiRequests.some((r) => r.path.includes('gated') && r.authorization === `Bearer ${hf.token}`)).toBe(true);
  });

  it('a checksum mismatch fails the job, deletes the bytes and puts nothing in place', async () => {
    const { gw, store } = await gateway();
    hf.faults.corrupt = true;
    await pull(gw, 'bad', { ref: 'org/tiny-GGUF:Q4_K_M' });
    expect(await settled(gw, 'bad')).toMatchObject({ state: 'failed', error: { code: 'model.checksum_mismatch' } });
    const blobs = join(store, 'models--org--tiny-GGUF/blobs');
    expect(existsSync(blobs) ? readdirSync(blobs) : []).toEqual([]);
    expect(existsSync(join(store, 'models--org--tiny-GGUF/snapshots'))).toBe(false);
    expect((await api(gw.url, '/api/models/bad')).status).toBe(404);
  });

  it('a split model comes with every part, and a vision model with its mmproj sibling', async () => {
    const { gw } = await gateway();
    await pull(gw, 'vision', { ref: 'org/vision-GGUF:Q4_K_M' });
    const job = await settled(gw, 'vision');
    expect(job.state).toBe('done');
    expect((job.files as Array<{ path: string; role: string }>).map((f) => [f.path, f.role])).toEqual([
      ['Q4_K_M/v-Q4_K_M-00001-of-00003.gguf', 'model'], ['Q4_K_M/v-Q4_K_M-00002-of-00003.gguf', 'part'], ['Q4_K_M/v-Q4_K_M-00003-of-00003.gguf', 'part'], ['Q4_K_M/mmproj-Q8_0.gguf', 'mmproj'],
    ]);
    const model = (await api(gw.url, '/api/models/vision')).json;
    expect(model.path).toMatch(/snapshots\/c+\/Q4_K_M\/v-Q4_K_M-00001-of-00003\.gguf$/);
    expect(model.files.map((f: string) => f.split('/').pop())).toEqual(['v-Q4_K_M-00002-of-00003.gguf', 'v-Q4_K_M-00003-of-00003.gguf']);
    expect(readFileSync(model.mmproj).equals(mmproj)).toBe(true);
    expect(readFileSync(model.files[1]).equals(parts[2]!)).toBe(true);
    expect(model.size_bytes).toBe(450_000);
  });

  it('a model that does not fit is refused with the figures, and --force pulls it', async () => {
    const { gw } = await gateway();
    const dry = await pull(gw, 'huge', { ref: 'org/huge-GGUF', dry_run: true });
    expect(dry.json.refusal).toMatchObject({ code: 'model.does_not_fit' });
    await pull(gw, 'huge', { ref: 'org/huge-GGUF' });
    const refused = await settled(gw, 'huge');
    expect(refused).toMatchObject({ state: 'failed', error: { code: 'model.does_not_fit', message: expect.stringMatching(/needs about \d+ MiB .*KV cache \d+ at context 8192/) } });
    expect(refused.bytes_fetched).toBe(0);
    await pull(gw, 'huge', { ref: 'org/huge-GGUF', force: true });
    expect(await settled(gw, 'huge')).toMatchObject({ state: 'done', force: true });
  });

  it('a file list with ../ in a path is refused and nothing is fetched', async () => {
    const { gw, store } = await gateway();
    const before = hf.stats.cdnRequests.length;
    await pull(gw, 'evil', { ref: 'org/evil-GGUF' });
    expect(await settled(gw, 'evil')).toMatchObject({ state: 'failed', error: { code: 'model.pull_unsafe_path' } });
    expect(hf.stats.cdnRequests.length).toBe(before);
    expect(existsSync(join(store, '..', 'evil-Q8_0.gguf'))).toBe(false);
  });

  it('two pulls under a cap of one: the second waits in queued', async () => {
    const { gw } = await gateway({}, '[models]\npull_parallel_cap = 1\n');
    hf.faults.bytesPerSecond = 256 * 1024;
    await pull(gw, 'one', { ref: 'org/tiny-GGUF:Q4_K_M' });
    await pull(gw, 'two', { ref: 'org/tiny-GGUF:Q8_0' });
    const states = async () => [(await api(gw.url, '/api/models/one/pull/status')).json.state, (await api(gw.url, '/api/models/two/pull/status')).json.state];
    await waitFor(states, { what: 'the first pull to download', until: ([first]) => first === 'downloading' });
    expect((await states())[1]).toBe('queued');
    const again = await pull(gw, 'two', { ref: 'org/tiny-GGUF:Q8_0' });
    expect(again.json).toMatchObject({ existing: true, state: 'queued' });
    hf.faults.bytesPerSecond = 0;
    expect((await settled(gw, 'one')).state).toBe('done');
    expect((await settled(gw, 'two')).state).toBe('done');
    const list = (await api(gw.url, '/api/models/pulls')).json.pulls.map((p: { model_id: string }) => p.model_id);
    expect(list).toEqual(['one', 'two']);
  });

  it('a catalogue name pulls its repo and quant, with its capabilities and profile', async () => {
    const { gw } = await gateway();
    await pull(gw, 'nomic-embed-text-v1.5', {});
    expect(await settled(gw, 'nomic-embed-text-v1.5')).toMatchObject({ state: 'done', ref: 'nomic-embed-text-v1.5' });
    expect((await api(gw.url, '/api/models/nomic-embed-text-v1.5')).json).toMatchObject({ hf_repo: 'nomic-ai/nomic-embed-text-v1.5-GGUF', hf_filename: 'nomic-embed-text-v1.5.Q8_0.gguf', capabilities: ['embed'], defaults: { profile: 'embed' } });
    // Pulling the id again (no ref) goes by the entry's hf_repo and hf_filename.
    await pull(gw, 'nomic-embed-text-v1.5', {});
    expect(await settled(gw, 'nomic-embed-text-v1.5')).toMatchObject({ state: 'done', bytes_fetched: 0 });
    await pull(gw, 'nope', {});
    expect(await settled(gw, 'nope')).toMatchObject({ state: 'failed', error: { code: 'model.pull_invalid_ref' } });
  });

  it('two ids pulling the same file at once share it: one download, both registered', async () => {
    const { gw, store } = await gateway();
    hf.faults.bytesPerSecond = 512 * 1024;
    await pull(gw, 'same-a', { ref: 'org/vision-GGUF:Q4_K_M' });
    await pull(gw, 'same-b', { ref: 'org/vision-GGUF:Q4_K_M' });
    const [a, b] = [await settled(gw, 'same-a'), await settled(gw, 'same-b')];
    expect([a.state, b.state, a.bytes_done, b.bytes_done], JSON.stringify([a.error, b.error])).toEqual(['done', 'done', 750_000, 750_000]);
    // Every byte came down once, between the two of them.
    expect((a.bytes_fetched as number) + (b.bytes_fetched as number)).toBe(750_000);
    hf.faults.bytesPerSecond = 0;
    expect(readFileSync((await api(gw.url, '/api/models/same-b')).json.mmproj).equals(mmproj)).toBe(true);
    expect(readdirSync(join(store, 'models--org--vision-GGUF/blobs'))).toHaveLength(4);
  });

  it('follows a file list given in pages', async () => {
    const { gw } = await gateway();
    await pull(gw, 'paged', { ref: 'org/paged-GGUF' });
    expect(await settled(gw, 'paged')).toMatchObject({ state: 'done', files: [{ path: 'p-Q4_K_M.gguf' }] });
    expect(hf.stats.apiRequests.filter((r) => r.path === `/api/models/org/paged-GGUF/tree/${commitOf('7')}`)).toHaveLength(3);
  });

  it('a direct URL needs an allowed host', async () => {
    const { gw } = await gateway();
    const url = `${hf.cdnUrl}/blobs/${hf.sha256(TINY)}`;
    // Refused before a job exists.
    const refused = await api(gw.url, '/api/models/direct/pull', { method: 'POST', body: { ref: url } });
    expect([refused.status, refused.json.error.code]).toEqual([403, 'model.pull_host_not_allowed']);
    expect((await api(gw.url, '/api/models/direct/pull/status')).status).toBe(404);
    const allowed = await gateway({}, `[models]\npull_allowed_hosts = ["${new URL(hf.cdnUrl).host}"]\n`);
    await pull(allowed.gw, 'direct', { ref: url });
    expect(await settled(allowed.gw, 'direct')).toMatchObject({ state: 'done', sha256: hf.sha256(TINY) });
  });
});

describe('a pulled model served end to end', () => {
  it('answers the openai client from a slot on the built-in engine', async () => {
    const { gw } = await gateway({ PATH: '/usr/bin:/bin' });
    await pull(gw, 'tiny', { ref: 'org/tiny-GGUF:Q4_K_M' });
    expect((await settled(gw, 'tiny')).state).toBe('done');
    const created = await api(gw.url, '/api/slots', { method: 'POST', body: { name: 'chat', model: 'tiny', provider: 'builtin', device: 'cpu', port: await freeSlotPort(), ctx_size: 512 } });
    expect(created.status, created.text).toBe(201);
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'unused' });
    const answer = await client.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'hello' }], max_tokens: 8 });
    expect(answer.choices[0]!.message.content).toMatch(/\S/);
    expect(realpathSync((await api(gw.url, '/api/models/tiny')).json.path)).toMatch(/blobs\/[0-9a-f]{64}$/);
  }, 90_000);

  it('`svc run org/repo:QUANT "prompt"` pulls the model, makes a slot for it and answers', async () => {
    // The slot svc run creates takes its port from a pool of one in this worker's block.
    const port = await freePoolPort();
    const { home, gw } = await gateway({ PATH: '/usr/bin:/bin' }, `[slots]\nport_range_start = ${port}\nport_range_end = ${port}\n`);
    const env = { SVC_API_URL: gw.url, PATH: '/usr/bin:/bin' };
    const run = await runSvcAsync(['run', 'org/tiny-GGUF:Q4_K_M', 'hello there'], { home: home.home, env });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain('pulling org/tiny-GGUF:Q4_K_M as tiny-q4_k_m');
    expect(run.stdout).toMatch(/\S/);
    expect((await api(gw.url, '/api/models/tiny-q4_k_m')).json).toMatchObject({ source: 'pull', used_by: ['tiny-q4_k_m'] });
    const again = await runSvcAsync(['run', 'org/tiny-GGUF:Q4_K_M', 'and again'], { home: home.home, env });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('pulling');
    expect((await api(gw.url, '/api/slots')).json.slots.map((s: { name: string }) => s.name)).toEqual(['tiny-q4_k_m']);
  }, 120_000);
});
