// Before any byte moves: a ref resolved to a commit and the exact files (sizes, SHA-256),
// the GGUF header read over Range, the memory the model needs against what the host has,
// and the free disk space against what is left to fetch. `svc model pull --dry-run` prints it.
import { open, statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ModelEntry } from '../../config/schema/registry.js';
import { readGgufHeader, readGgufHeaderFrom, type ByteSource, type GgufHeader } from '../../engines/gguf/reader.js';
import { ModelError } from '../../protocol/errors.js';
import type { PullFilePlan, PullPlanPayload } from '../../protocol/pulls.js';
import { catalogueEntry } from '../../protocol/model-catalogue.js';
import { statusError, type Hub } from '../hf/hub.js';
import { pickFiles, quantOf, type RepoFile } from '../hf/pick.js';
import type { PullRef } from '../../protocol/pull-ref.js';
import { readRemoteGgufHeader } from '../hf/remote-gguf.js';
import { bytesOnDisk, partsOf } from './parts.js';
import { estimateFit, modelShape } from './fit.js';
import { repoLayout, urlTarget } from './layout.js';

export interface PlanInput {
  readonly modelId: string;
  readonly ref: PullRef;
  readonly refText: string;
  readonly store: string;
  readonly hub: Hub;
  /** The registry entry of the id, when there is one (a re-pull by id uses its hf_repo). */
  readonly entry?: ModelEntry;
  readonly context?: number;
  readonly host: { readonly ramAvailableMb: number; readonly vramMb: number };
  readonly connections: number;
  /** A header read that brings nothing for this long is retried. */
  readonly stallMs: number;
  readonly signal?: AbortSignal;
}

/** A bare name becomes the catalogue entry's repo and quant, or the registry entry's file. */
export function hfRefOf(ref: PullRef, entry: ModelEntry | undefined): Exclude<PullRef, { kind: 'name' }> & { profile?: string; capabilities?: readonly string[] } {
  if (ref.kind !== 'name') return ref;
  const curated = catalogueEntry(ref.name);
  if (curated) return { kind: 'hf', repo: curated.repo, quant: curated.quant, profile: curated.profile, capabilities: curated.capabilities };
  if (entry?.hf_repo) return { kind: 'hf', repo: entry.hf_repo, ...(entry.hf_filename && { file: entry.hf_filename }) };
  throw new ModelError('model.pull_invalid_ref', `"${ref.name}" is not in the catalogue (svc model search) and no registry entry of that id names an hf_repo; pull org/repo[:quant] instead`, { ref: ref.name });
}

export async function planPull(input: PlanInput): Promise<PullPlanPayload> {
  const ref = hfRefOf(input.ref, input.entry);
  const resolved = ref.kind === 'url' ? await urlFiles(input, ref.url) : await repoFiles(input, ref);
  const files: PullFilePlan[] = [];
  for (const file of resolved.files) files.push({ ...file, on_disk_bytes: await bytesOnDisk({ ...file, gitOid: file.git_oid }) });
  const model = files.filter((f) => f.role !== 'mmproj');
  const header = await headerOf(input, model[0]!);
  const shape = header ? modelShape(header) : null;
  const bytesTotal = files.reduce((sum, f) => sum + f.size, 0);
  const bytesOnDiskNow = files.reduce((sum, f) => sum + f.on_disk_bytes, 0);
  const fit = estimateFit({ weightsBytes: bytesTotal, shape, context: input.context, ...input.host });
  const free = await freeBytes(input.store);
  const mmproj = files.find((f) => f.role === 'mmproj');
  return {
    model_id: input.modelId,
    ref: input.refText,
    source: ref.kind === 'url' ? 'url' : 'hf',
    repo: ref.kind === 'hf' ? ref.repo : null,
    revision: resolved.revision,
    commit: resolved.commit,
    quant: quantOf(model[0]!.path),
    files,
    path: model[0]!.link,
    parts: model.slice(1).map((f) => f.link),
    mmproj: mmproj?.link ?? null,
    architecture: shape?.architecture ?? null,
    context_length: shape?.contextLength ?? null,
    layers: shape?.layers ?? null,
    mtp: shape?.mtp ?? false,
    bytes_total: bytesTotal,
    bytes_on_disk: bytesOnDiskNow,
    fit,
    disk: { free_bytes: free, needed_bytes: bytesTotal - bytesOnDiskNow, fits: free >= bytesTotal - bytesOnDiskNow },
    profile: 'profile' in ref ? (ref.profile ?? null) : null,
    capabilities: 'capabilities' in ref && ref.capabilities ? [...ref.capabilities] : null,
    store: input.store,
  };
}

/** Refusals a plan carries: a model that does not fit (unless forced) and a full disk. */
export function checkPlan(plan: PullPlanPayload, force: boolean): void {
  if (!plan.disk.fits) {
    throw new ModelError('model.disk_full', `${plan.store} has ${plan.disk.free_bytes} bytes free; the pull needs ${plan.disk.needed_bytes} more`, { needed_bytes: plan.disk.needed_bytes, free_bytes: plan.disk.free_bytes, store: plan.store });
  }
  if (!plan.fit.fits && !force) {
    const f = plan.fit;
    throw new ModelError('model.does_not_fit', `${plan.model_id} needs about ${f.total_mb} MiB (weights ${f.weights_mb} + KV cache ${f.kv_cache_mb} at context ${f.context} + ${f.overhead_mb}) and this host has ${f.budget_mb} MiB (RAM free ${f.ram_available_mb} + VRAM ${f.vram_mb}); pull with --force to fetch it anyway`, { ...f });
  }
}

async function repoFiles(input: PlanInput, ref: Extract<PullRef, { kind: 'hf' }>) {
  const revision = ref.revision ?? 'main';
  const commit = await input.hub.commit(ref.repo, revision);
  const tree = await input.hub.tree(ref.repo, commit);
  const pick = pickFiles(tree, { quant: ref.quant, file: ref.file });
  if ('error' in pick) throw new ModelError('model.pull_not_found', `${ref.repo}: ${pick.error}${pick.available.length ? `; it has ${pick.available.join(', ')}` : ''}`, { repo: ref.repo, available: [...pick.available] });
  const layout = repoLayout(input.store, ref.repo);
  const plan = (file: RepoFile, role: PullFilePlan['role']): PullFilePlan => ({
    path: file.path,
    role,
    size: file.size,
    sha256: file.sha256,
    git_oid: file.sha256 ? null : file.gitOid,
    url: input.hub.resolveUrl(ref.repo, commit, file.path),
    target: layout.blob(file.sha256 ?? file.gitOid),
    link: layout.snapshot(commit, file.path),
    on_disk_bytes: 0,
  });
  const files = pick.files.map((f, i) => plan(f, i === 0 ? 'model' : 'part'));
  if (pick.mmproj) files.push(plan(pick.mmproj, 'mmproj'));
  return { revision, commit, files };
}

async function urlFiles(input: PlanInput, url: string) {
  const answer = await input.hub.open(url, { range: 'bytes=0-0' }, { signal: input.signal });
  await answer.body.dump();
  if (answer.status !== 206 && answer.status !== 200) throw statusError(answer.status, url);
  const range = /\/(\d+)$/.exec(String(answer.headers['content-range'] ?? ''));
  const size = range ? Number(range[1]) : Number(answer.headers['content-length']);
  if (!Number.isSafeInteger(size) || size <= 0 || answer.status !== 206) throw new ModelError('model.pull_failed', `${url}: the host does not say the file's size over a Range request, so it cannot be pulled resumably`, { url });
  const etag = String(answer.headers['x-linked-etag'] ?? answer.headers.etag ?? '').replace(/^W\//, '').replace(/"/g, '');
  const target = urlTarget(input.store, url);
  const file: PullFilePlan = { path: new URL(url).pathname.split('/').pop() || 'model.gguf', role: 'model', size, sha256: /^[0-9a-f]{64}$/.test(etag) ? etag : null, git_oid: null, url, target, link: target, on_disk_bytes: 0 };
  return { revision: null, commit: null, files: [file] };
}

async function headerOf(input: PlanInput, file: PullFilePlan): Promise<GgufHeader | null> {
  if (!file.path.toLowerCase().endsWith('.gguf')) return null;
  try {
    if (file.on_disk_bytes === file.size) return await readGgufHeader(file.target, { maxArrayLength: 1024 });
    // A resumed pull reads the header from the start of its first part: no byte twice.
    const local = await readLocalPrefix(partsOf(file.target, file.size)[0]!.file, file.size, file.path);
    if (local) return local;
    return await readRemoteGgufHeader(input.hub, file.url, file.size, file.path, { signal: input.signal, stallMs: input.stallMs });
  } catch (error) {
    if (error instanceof ModelError && error.code !== 'model.pull_failed') throw error;
    if (input.signal?.aborted) throw error;
    return null;
  }
}

/** The header from a part file holding the file's first bytes, or null when it holds too few. */
async function readLocalPrefix(path: string, size: number, label: string): Promise<GgufHeader | null> {
  const file = await open(path, 'r').catch(() => undefined);
  if (!file) return null;
  try {
    const source: ByteSource = { size, label, chunk: 64 * 1024, read: async (buffer, offset, length, position) => (await file.read(buffer, offset, length, position)).bytesRead };
    return await readGgufHeaderFrom(source, { maxArrayLength: 1024 });
  } catch {
    return null;
  } finally {
    await file.close();
  }
}

async function freeBytes(store: string): Promise<number> {
  for (let dir = store; ; dir = dirname(dir)) {
    const info = await statfs(dir).catch(() => undefined);
    if (info) return info.bavail * info.bsize;
    if (dirname(dir) === dir) return 0;
  }
}
