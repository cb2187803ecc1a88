// One file of a pull: fetched in parallel Range parts, each appended to its own part file
// (`<blob>.part<i>of<n>`). A part file's size is exactly what is on disk, so a pull stopped
// any way at all (a dropped connection, a stall, Ctrl-C, SIGKILL) resumes where each part
// stopped and never fetches a byte twice. When every part is complete they are hashed in
// order, joined into one file and renamed into place only if the SHA-256 matches.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ModelError } from '../../protocol/errors.js';
import { statusError, type Hub } from '../hf/hub.js';

export interface FileDownload {
  readonly url: string;
  readonly size: number;
  /** SHA-256 to verify against, or null (then the git blob id, or nothing for a plain URL). */
  readonly sha256: string | null;
  readonly gitOid: string | null;
  /** Where the verified file goes. */
  readonly target: string;
}

export interface DownloadOptions {
  readonly hub: Hub;
  readonly signal: AbortSignal;
  /** No byte for this long: the part's request is dropped and retried. */
  readonly stallMs: number;
  readonly connections: number;
  /** Called with every chunk's size as it is written. */
  readonly onBytes: (bytes: number) => void;
}

/** Parts are at least this big, so a small file is one request. */
export const MIN_PART_BYTES = 4 * 1024 * 1024;
const MAX_ATTEMPTS_WITHOUT_PROGRESS = 6;
const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];

interface Part {
  readonly index: number;
  readonly start: number;
  readonly length: number;
  readonly file: string;
}

export function partsOf(target: string, size: number, connections: number): Part[] {
  const count = Math.max(1, Math.min(connections, Math.floor(size / MIN_PART_BYTES)));
  const each = Math.ceil(size / count);
  return Array.from({ length: count }, (_, index) => ({
    index,
    start: index * each,
    length: Math.max(0, Math.min(each, size - index * each)),
    file: `${target}.part${index + 1}of${count}`,
  }));
}

const sizeOf = async (path: string) => (await stat(path).catch(() => undefined))?.size ?? 0;

/** Bytes of this file already on disk (the whole file when it is in place). */
export async function bytesOnDisk(download: FileDownload, connections: number): Promise<number> {
  if ((await sizeOf(download.target)) === download.size && download.size > 0) return download.size;
  let total = 0;
  for (const part of partsOf(download.target, download.size, connections)) total += Math.min(part.length, await sizeOf(part.file));
  return total;
}

/** Remove every part file of a download (a cancel with discard, a checksum mismatch). */
export async function discardParts(target: string, size: number, connections: number): Promise<void> {
  await Promise.all(partsOf(target, size, connections).map((p) => rm(p.file, { force: true })));
}

export async function downloadFile(download: FileDownload, options: DownloadOptions): Promise<{ sha256: string; fetched: number }> {
  const existing = await stat(download.target).catch(() => undefined);
  const parts = partsOf(download.target, download.size, options.connections);
  if (existing?.size === download.size && download.sha256) {
    // In place and verified before (a blob is only ever renamed in after its check).
    await Promise.all(parts.map((p) => rm(p.file, { force: true })));
    return { sha256: download.sha256, fetched: 0 };
  }
  let fetched = 0;
  const counting = { ...options, onBytes: (n: number) => ((fetched += n), options.onBytes(n)) };
  // Every part settles before a failure is reported: none may still write after a cancel.
  const settledParts = await Promise.allSettled(parts.map((part) => fetchPart(download, part, counting)));
  const failed = settledParts.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  const sha256 = await joinAndVerify(download, parts, options);
  return { sha256, fetched };
}

async function fetchPart(download: FileDownload, part: Part, options: DownloadOptions): Promise<void> {
  let failures = 0;
  for (;;) {
    let done = await sizeOf(part.file);
    if (done > part.length) {
      // Only part 1 grows past its length: a join of the later parts into it was cut off.
      await truncate(part.file, part.length);
      done = part.length;
    }
    if (done === part.length) return;
    const before = done;
    try {
      await fetchRange(download, part, done, options);
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason ?? error;
      // Only the network is worth another try; a refusal or a local disk error is final.
      if (!(error instanceof ModelError) || error.code !== 'model.pull_failed') throw error;
      const progressed = (await sizeOf(part.file)) > before;
      failures = progressed ? 1 : failures + 1;
      if (failures >= MAX_ATTEMPTS_WITHOUT_PROGRESS) {
        throw new ModelError('model.pull_failed', `${download.url}: ${failures} attempts in a row brought no bytes (${(error as Error).message}); pull again to resume`, { url: download.url });
      }
      await delay(BACKOFF_MS[Math.min(failures, BACKOFF_MS.length) - 1]!, options.signal);
    }
  }
}

/** One request for the rest of a part, appended to its file; throws on a drop or a stall. */
async function fetchRange(download: FileDownload, part: Part, done: number, options: DownloadOptions): Promise<void> {
  const stall = new AbortController();
  const signal = AbortSignal.any([options.signal, stall.signal]);
  let timer = setTimeout(() => stall.abort(new Error('stalled')), options.stallMs);
  const first = part.start + done;
  const last = part.start + part.length - 1;
  await mkdir(dirname(part.file), { recursive: true });
  const file = await open(part.file, 'a');
  try {
    const answer = await options.hub.open(download.url, { range: `bytes=${first}-${last}` }, { signal });
    if (answer.status !== 206) {
      const text = await answer.body.text().catch(() => '');
      if (answer.status === 200) throw new ModelError('model.pull_failed', `${download.url}: the host answered 200 to a Range request`, {});
      const error = statusError(answer.status, download.url, text);
      throw answer.status >= 500 || answer.status === 429 ? new ModelError('model.pull_failed', error.message, error.details) : error;
    }
    let wrote = 0;
    for await (const chunk of answer.body as AsyncIterable<Buffer>) {
      clearTimeout(timer);
      timer = setTimeout(() => stall.abort(new Error('stalled')), options.stallMs);
      const take = Math.min(chunk.length, part.length - done - wrote);
      if (take <= 0) break;
      await file.write(chunk, 0, take).catch(diskError);
      wrote += take;
      options.onBytes(take);
    }
    if (done + wrote < part.length) throw new ModelError('model.pull_failed', `${download.url}: the connection closed after ${wrote} bytes of ${part.length - done}`, {});
  } catch (error) {
    if (stall.signal.aborted && !options.signal.aborted) throw new ModelError('model.pull_failed', `${download.url}: no bytes for ${options.stallMs / 1000} s`, {});
    if (error instanceof Error && !(error instanceof ModelError) && !options.signal.aborted && !(error as DiskError).disk) {
      throw new ModelError('model.pull_failed', `${download.url}: ${error.message}`, {});
    }
    throw error;
  } finally {
    clearTimeout(timer);
    await file.close();
  }
}

type DiskError = Error & { disk?: true; code?: string };

function diskError(error: DiskError): never {
  if (error.code === 'ENOSPC') throw new ModelError('model.disk_full', `the disk is full: ${error.message}`, {});
  error.disk = true;
  throw error;
}

/** Hash the parts in order while appending parts 2..n to part 1, then rename it into place. */
async function joinAndVerify(download: FileDownload, parts: readonly Part[], options: DownloadOptions): Promise<string> {
  const sha = createHash('sha256');
  const git = download.sha256 ? undefined : createHash('sha1').update(`blob ${download.size}\0`);
  const head = await open(parts[0]!.file, 'a');
  try {
    for (const part of parts) {
      for await (const chunk of createReadStream(part.file, { signal: options.signal }) as AsyncIterable<Buffer>) {
        sha.update(chunk);
        git?.update(chunk);
        if (part.index > 0) await head.write(chunk);
      }
    }
  } finally {
    await head.close();
  }
  const sha256 = sha.digest('hex');
  const gitOid = git?.digest('hex');
  const mismatch = download.sha256 ? sha256 !== download.sha256 : download.gitOid !== null && gitOid !== download.gitOid;
  if (mismatch) {
    await Promise.all(parts.map((p) => rm(p.file, { force: true })));
    throw new ModelError('model.checksum_mismatch', `${download.url}: the bytes do not match the published checksum (${download.sha256 ?? download.gitOid}, got ${download.sha256 ? sha256 : gitOid}); they were deleted`, { url: download.url, expected: download.sha256 ?? download.gitOid, actual: download.sha256 ? sha256 : gitOid });
  }
  await rename(parts[0]!.file, download.target);
  await Promise.all(parts.slice(1).map((p) => rm(p.file, { force: true })));
  return sha256;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}
