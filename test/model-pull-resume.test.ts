// Pulls that are interrupted every way a user meets: the gateway killed with SIGKILL, a
// dropped connection, a stall, a cancel (keeping or discarding the parts) and Ctrl-C in
// `svc model pull`. Each resumes from the part files and never fetches a byte twice. A
// gateway stopped in the middle of a pull (killed or shut down) resumes it by itself at its
// next start, and answers for finished pulls after a restart (issue 22).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { bytesOnDisk } from '../src/models/pull/parts.js';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, startGateway, SVC_BIN, svcEnv, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';
import { commitOf, paddedGguf, pull, settled, startHf, TINY, type HfEndpoint } from './helpers/hf.js';
import { waitFor } from './helpers/wait.js';

// Six parts of 8 MiB, fetched four at a time: more parts than connections, as a big model has.
const SIZE = 48 * 1024 * 1024;
const PART = 8 * 1024 * 1024;
const big = paddedGguf(SIZE);
let hf: HfEndpoint;
let sha: string;

beforeAll(async () => {
  hf = await startHf({
    'org/big-GGUF': { commit: commitOf('9'), files: { 'big-Q4_K_M.gguf': big } },
    'org/tiny-GGUF': { commit: commitOf('a'), files: { 'tiny-Q4_K_M.gguf': TINY } },
  });
  sha = hf.sha256(big);
});
afterAll(() => hf?.close());

const gateways: Gateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.stop()));
  Object.assign(hf.faults, { dropAfterBytes: 0, dropTimes: 0, stallAfterBytes: 0, stallTimes: 0, bytesPerSecond: 0 });
});

async function gateway(home: TempHome): Promise<Gateway> {
  const gw = await startGateway(home.home, { env: { SVC_HF_ENDPOINT: hf.url } });
  gateways.push(gw);
  return gw;
}

const blobs = (home: TempHome) => join(home.stateRoot, 'models/models--org--big-GGUF/blobs');
/** Bytes the part files hold now (what a resumed pull must not fetch again; a part appended to part 1 counts once). */
const partBytes = (home: TempHome) => bytesOnDisk({ url: '', size: SIZE, sha256: null, gitOid: null, target: join(blobs(home), sha) });
const partFiles = (home: TempHome) => (existsSync(blobs(home)) ? readdirSync(blobs(home)).filter((f) => f.includes('.part')) : []);
const status = async (gw: Gateway) => (await api(gw.url, '/api/models/big/pull/status')).json;
/**
 * Wait until the fixture has stopped counting bytes for a gateway that is gone: it counts a
 * piece when it writes it, and writes to a connection until it sees that connection close.
 * A stopped gateway holds no connection at all.
 */
const gone = () => waitFor(() => hf.cdnConnections(), { what: 'the CDN to see every connection of the stopped gateway close', until: (open) => open === 0 });
/** The same for a cancelled pull, whose gateway lives on (with idle keep-alive connections): no answer is being written. */
const quiet = () => waitFor(() => hf.answersInFlight(), { what: 'the CDN to stop writing the cancelled downloads', until: (writing) => writing === 0 });
const complete = (home: TempHome) => {
  const file = join(blobs(home), sha);
  expect(readFileSync(file).equals(big)).toBe(true);
  expect(readdirSync(blobs(home))).toEqual([sha]);
};

describe('an interrupted pull resumes', () => {
  it('after the gateway is killed with SIGKILL half-way: the second run fetches only the missing bytes', async () => {
    const home = tempHome();
    const first = await gateway(home);
    hf.faults.bytesPerSecond = 2 * 1024 * 1024;
    await pull(first, 'big', { ref: 'org/big-GGUF' });
    await waitFor(() => status(first), { what: 'a quarter of the pull fetched', until: (job) => job.bytes_done > SIZE / 4, timeout: 30_000 });
    await first.kill();
    await gone();
    const onDisk = await partBytes(home);
    expect(onDisk).toBeGreaterThan(SIZE / 4);
    expect(onDisk).toBeLessThan(SIZE);
    hf.faults.bytesPerSecond = 0;
    const served = hf.stats.bytesServed;
    const second = await gateway(home);
    await pull(second, 'big', { ref: 'org/big-GGUF' });
    const job = await settled(second, 'big');
    expect(job).toMatchObject({ state: 'done', resumed: true, sha256: sha, bytes_fetched: SIZE - onDisk });
    expect(hf.stats.bytesServed - served).toBe(SIZE - onDisk);
    complete(home);
  }, 60_000);

  it('after dropped connections: each part goes on from its last byte', async () => {
    const home = tempHome();
    const gw = await gateway(home);
    Object.assign(hf.faults, { dropAfterBytes: 2 * 1024 * 1024, dropTimes: 2 });
    const requests = hf.stats.cdnRequests.length;
    await pull(gw, 'big', { ref: 'org/big-GGUF' });
    expect(await settled(gw, 'big')).toMatchObject({ state: 'done', bytes_fetched: SIZE, sha256: sha });
    const ranges = hf.stats.cdnRequests.slice(requests).map((r) => Number(/bytes=(\d+)-/.exec(r.range ?? '')?.[1]));
    const partStarts = [0, 1, 2, 3, 4, 5].map((i) => i * PART);
    expect(ranges.filter((start) => !partStarts.includes(start))).toHaveLength(2);
    // Bytes in flight when a connection drops are lost, so a retry starts at most 2 MiB in.
    expect(ranges.filter((start) => !partStarts.includes(start)).every((start) => partStarts.some((p) => start > p + 1024 * 1024 && start <= p + 2 * 1024 * 1024))).toBe(true);
    complete(home);
  });

  it('after a stall: the connection is dropped after [models].pull_stall_timeout_s and retried', async () => {
    const home = tempHome({ 'svc.toml': '[models]\npull_stall_timeout_s = 1\n' });
    const gw = await gateway(home);
    Object.assign(hf.faults, { stallAfterBytes: 2 * 1024 * 1024, stallTimes: 1 });
    const requests = hf.stats.cdnRequests.length;
    await pull(gw, 'big', { ref: 'org/big-GGUF' });
    expect(await settled(gw, 'big')).toMatchObject({ state: 'done', bytes_fetched: SIZE });
    expect(hf.stats.cdnRequests.length - requests).toBe(1 + 6 + 1); // the header read, six parts, one retry
    complete(home);
  });

  it('after a cancel that keeps the parts; a cancel with discard removes them', async () => {
    const home = tempHome();
    const gw = await gateway(home);
    hf.faults.bytesPerSecond = 512 * 1024;
    await pull(gw, 'big', { ref: 'org/big-GGUF' });
    await waitFor(() => status(gw), { what: 'the first bytes of the pull', until: (job) => job.bytes_done > 0, timeout: 30_000 });
    const cancelled = await api(gw.url, '/api/models/big/pull', { method: 'DELETE' });
    expect(cancelled.json).toMatchObject({ state: 'cancelled' });
    await quiet();
    const onDisk = await partBytes(home);
    expect(onDisk).toBeGreaterThan(0);
    await pull(gw, 'big', { ref: 'org/big-GGUF' });
    await waitFor(() => status(gw), { what: 'the pull to download again', until: (job) => job.state === 'downloading', timeout: 30_000 });
    expect((await status(gw)).resumed).toBe(true);
    const discarded = await api(gw.url, '/api/models/big/pull?discard=true', { method: 'DELETE' });
    expect(discarded.json).toMatchObject({ state: 'cancelled' });
    expect(await partBytes(home)).toBe(0);
    expect(partFiles(home)).toEqual([]);
    const events = (await api(gw.url, '/api/events?type=pull.cancelled')).json.events;
    expect(events.map((e: { data: { discard: boolean } }) => e.data.discard)).toEqual([false, true]);
  });

  it('after Ctrl-C in `svc model pull`: the job is cancelled and the CLI says pulling again resumes', async () => {
    const home = tempHome();
    const gw = await gateway(home);
    hf.faults.bytesPerSecond = 512 * 1024;
    const cli = spawn(process.execPath, [SVC_BIN, 'model', 'pull', 'org/big-GGUF', '--id', 'big'], { env: svcEnv(home.home, { SVC_API_URL: gw.url }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => cli.once('close', resolve));
    await waitFor(() => stderr, { what: '`svc model pull` to report the download', until: (text) => /big: downloading/.test(text), timeout: 30_000 });
    cli.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/pull of big cancelled; the .* on disk are kept: `svc model pull org\/big-GGUF` again resumes/);
    expect((await status(gw)).state).toBe('cancelled');
  });
});

describe('a pull survives a restart', () => {
  /** Stop the first gateway in the middle of a pull, then start a second on the same home, which is asked nothing about pulls. */
  async function stopMidPull(stop: (gw: Gateway) => Promise<unknown>) {
    const home = tempHome();
    const first = await gateway(home);
    hf.faults.bytesPerSecond = 2 * 1024 * 1024;
    await pull(first, 'big', { ref: 'org/big-GGUF' });
    await waitFor(() => status(first), { what: 'a quarter of the pull fetched', until: (job) => job.bytes_done > SIZE / 4, timeout: 30_000 });
    await stop(first);
    await gone();
    const onDisk = await partBytes(home);
    expect(onDisk).toBeGreaterThan(0);
    expect(onDisk).toBeLessThan(SIZE);
    hf.faults.bytesPerSecond = 0;
    const served = hf.stats.bytesServed;
    const second = await gateway(home);
    // Only a route that never opens the pull manager, until the model is registered.
    await waitFor(async () => (await api(second.url, '/api/models/big')).status, { what: 'the resumed pull to register the model', until: (code) => code === 200, timeout: 60_000 });
    const job = await status(second);
    expect(job).toMatchObject({ state: 'done', resumed: true, sha256: sha, bytes_fetched: SIZE - onDisk, bytes_total: SIZE });
    expect(job.bytes_fetched).toBeLessThan(SIZE);
    expect(hf.stats.bytesServed - served).toBe(SIZE - onDisk);
    const registered = (await api(second.url, '/api/models/big')).json;
    expect(createHash('sha256').update(readFileSync(registered.path)).digest('hex')).toBe(sha);
    complete(home);
    expect(readdirSync(join(home.stateRoot, 'pull-jobs', 'unfinished'))).toEqual([]);
    // The same job, started anew: its events and activity rows as for any pull.
    const events = (await api(second.url, '/api/events?type=pull.*&limit=100')).json.events.map((e: { type: string; data: { job: string } }) => [e.type, e.data.job]);
    expect(events).toEqual(expect.arrayContaining([['pull.queued', job.id], ['pull.started', job.id], ['pull.completed', job.id]]));
    const rows = (await api(second.url, '/api/activity?action=model.*&target=big')).json.items.map((r: { action: string; actor: string }) => [r.action, r.actor]);
    expect(rows).toEqual(expect.arrayContaining([['model.pull_start', 'system'], ['model.pull', 'system']]));
  }

  it('killed with SIGKILL half-way: the next gateway finishes it from its parts without being asked', async () => {
    await stopMidPull((gw) => gw.kill());
  }, 90_000);

  it('stopped with SIGTERM half-way: the job is not cancelled, and the next gateway finishes it', async () => {
    await stopMidPull(async (gw) => expect(await gw.stop()).toBe(0));
  }, 90_000);

  it('status answers for finished pulls after a restart: from the job record, else from the registry', async () => {
    const home = tempHome();
    const first = await gateway(home);
    await pull(first, 'tiny', { ref: 'org/tiny-GGUF' });
    await pull(first, 'nope', {});
    const done = await settled(first, 'tiny');
    const failed = await settled(first, 'nope');
    expect([done.state, failed.state]).toEqual(['done', 'failed']);
    await first.stop();

    const second = await gateway(home);
    expect((await api(second.url, '/api/models/tiny/pull/status')).json).toEqual(done);
    expect((await api(second.url, '/api/models/nope/pull/status')).json).toMatchObject({ id: failed.id, state: 'failed', error: { code: 'model.pull_invalid_ref' } });
    expect((await api(second.url, '/api/models/pulls')).json.pulls.map((p: { model_id: string }) => p.model_id).sort()).toEqual(['nope', 'tiny']);
    await second.stop();

    // No record left (pruned, or pulled by an older svc): a registered model answers as done.
    // A record that is not one is skipped with a warning; the gateway starts all the same.
    const jobs = join(home.stateRoot, 'pull-jobs');
    rmSync(join(jobs, 'tiny.json'));
    mkdirSync(join(jobs, 'unfinished'), { recursive: true });
    writeFileSync(join(jobs, 'unfinished', 'torn.json'), '{"job":{"model_id":"to');
    const third = await gateway(home);
    await waitFor(() => third.output(), { what: 'the warning about the torn job record', until: (out) => /skipped the pull job record .*torn\.json/.test(out), timeout: 30_000 });
    expect((await api(third.url, '/api/models/tiny/pull/status')).json).toMatchObject({ id: '', model_id: 'tiny', state: 'done', sha256: hf.sha256(TINY), path: done.path, error: null });
    const unknown = await api(third.url, '/api/models/other/pull/status');
    expect([unknown.status, unknown.json.error.code]).toEqual([404, 'model.pull_no_job']);
  }, 60_000);
});
