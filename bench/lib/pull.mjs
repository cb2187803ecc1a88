// A model pull beside curl: the same file from the same Hugging Face endpoint fixture
// (test/fixtures/hf-endpoint.mjs, in this process), fetched by `svc model pull` (four Range
// parts, written, hashed and joined) and by `curl -o` (one connection, written). Runs
// alternate, medians are reported. Then a pull killed with SIGKILL half-way and resumed:
// the bytes the second run fetches beyond what was missing.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startHfEndpoint } from '../../test/fixtures/hf-endpoint.mjs';
import { median } from './load.mjs';
import { startGateway } from './processes.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A GGUF header a pull reads (the resume reads it from its first part), then filler. */
async function fileOf(bytes) {
  const { encodeGguf, gguf } = await import('../../dist/engines/gguf/writer.js');
  const header = encodeGguf({ metadata: { 'general.architecture': gguf.string('llama'), 'llama.context_length': gguf.uint32(4096), 'llama.block_count': gguf.uint32(2) }, tensors: [] });
  const out = Buffer.allocUnsafe(bytes);
  for (let i = 0; i + 4 <= bytes; i += 4) out.writeUInt32LE((i * 2654435761) >>> 0, i);
  header.copy(out);
  return out;
}

async function pullOnce(hf, { killAt } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'svc-bench-pull-'));
  const home = { home: root, wrapper: '/bin/false' };
  let gw = await startGateway(home, [], { SVC_HF_ENDPOINT: hf.url });
  const post = () => fetch(`${gw.url}/api/models/big/pull`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ref: 'bench/big-GGUF' }) });
  const status = async () => (await fetch(`${gw.url}/api/models/big/pull/status`)).json();
  try {
    const start = performance.now();
    await post();
    let job;
    let resumed = null;
    for (;;) {
      job = await status();
      if (killAt && job.bytes_done >= killAt * job.bytes_total && job.bytes_total > 0) {
        await gw.stop('SIGKILL');
        await sleep(300);
        const { bytesOnDisk } = await import('../../dist/models/pull/parts.js');
        const target = join(root, 'var/lib/svc/models/models--bench--big-GGUF/blobs', hf.sha256(hf.file));
        const onDisk = await bytesOnDisk({ url: '', size: job.bytes_total, sha256: null, gitOid: null, target });
        const served = hf.stats.bytesServed;
        gw = await startGateway(home, [], { SVC_HF_ENDPOINT: hf.url });
        await post();
        resumed = { onDisk, served };
        killAt = undefined;
        continue;
      }
      if (['done', 'failed', 'cancelled'].includes(job.state)) break;
      await sleep(20);
    }
    const seconds = (performance.now() - start) / 1000;
    if (job.state !== 'done') throw new Error(`bench pull ended ${job.state}: ${JSON.stringify(job.error)}`);
    if (resumed) return { refetched_bytes: hf.stats.bytesServed - resumed.served - (job.bytes_total - resumed.onDisk), on_disk_at_kill: resumed.onDisk, fetched_after: job.bytes_fetched };
    return { seconds };
  } finally {
    await gw.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Not execFileSync: the endpoint answering curl runs in this process. */
async function curlOnce(url) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-curl-'));
  try {
    const start = performance.now();
    await promisify(execFile)('curl', ['-sSf', '-o', join(dir, 'file'), url]);
    const fetched = (performance.now() - start) / 1000;
    // What a verified download costs with the usual tools: the fetch, then sha256sum.
    await promisify(execFile)('sha256sum', [join(dir, 'file')]);
    return { fetched, verified: (performance.now() - start) / 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function pullBeside(options = {}) {
  const bytes = options.bytes ?? 512 * 1024 * 1024;
  const reps = options.reps ?? 3;
  const file = await fileOf(bytes);
  const hf = await startHfEndpoint({ repos: { 'bench/big-GGUF': { commit: 'b'.repeat(40), files: { 'big-Q4_K_M.gguf': file } } } });
  hf.file = file;
  try {
    const url = `${hf.cdnUrl}/blobs/${hf.sha256(file)}`;
    const svc = [];
    const curl = [];
    const curlVerified = [];
    for (let rep = 0; rep < reps; rep++) {
      const c = await curlOnce(url);
      curl.push(c.fetched);
      curlVerified.push(c.verified);
      svc.push((await pullOnce(hf)).seconds);
    }
    const resume = await pullOnce(hf, { killAt: 0.5 });
    const mib = bytes / 2 ** 20;
    const svcS = median(svc);
    const curlS = median(curl);
    const verifiedS = median(curlVerified);
    return {
      bytes,
      svc_s: svcS,
      curl_s: curlS,
      curl_then_sha256sum_s: verifiedS,
      svc_mib_per_s: mib / svcS,
      curl_mib_per_s: mib / curlS,
      rate_ratio_vs_curl: curlS / svcS,
      rate_ratio_vs_curl_and_sha256sum: verifiedS / svcS,
      resume,
    };
  } finally {
    await hf.close();
  }
}
