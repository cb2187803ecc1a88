// One file of a pull: fetched in Range parts, a few at a time, each appended to its own
// part file (`<blob>.part<i>of<n>`). A part file's size is exactly what is on disk, so a
// pull stopped any way at all (a dropped connection, a stall, Ctrl-C, SIGKILL) resumes where
// each part stopped and never fetches a byte twice. Completed parts are joined onto part
// 1's file and hashed in order as they come (assembler.ts); the file is renamed into place
// only if its SHA-256 matches.
import { mkdir, open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ModelError } from '../../protocol/errors.js';
import { statusError, type Hub } from '../hf/hub.js';
import { Assembler } from './assembler.js';
import { discardParts, partsOf, sizeOf, type FileDownload, type Part } from './parts.js';


export interface DownloadOptions {
  readonly hub: Hub;
  readonly signal: AbortSignal;
  /** No byte for this long: the part's request is dropped and retried. */
  readonly stallMs: number;
  readonly connections: number;
  /** Called with every chunk's size as it is written. */
  readonly onBytes: (bytes: number) => void;
}

const MAX_ATTEMPTS_WITHOUT_PROGRESS = 6;
/** Bytes gathered before one write. */
const WRITE_BATCH = 1024 * 1024;
const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];

export async function downloadFile(download: FileDownload, options: DownloadOptions): Promise<{ sha256: string; fetched: number }> {
  const existing = await stat(download.target).catch(() => undefined);
  const parts = partsOf(download.target, download.size);
  if (existing?.size === download.size && download.sha256) {
    // In place and verified before (a blob is only ever renamed in after its check).
    await discardParts(download.target, download.size);
    return { sha256: download.sha256, fetched: 0 };
  }
  let fetched = 0;
  const counting = { ...options, onBytes: (n: number) => ((fetched += n), options.onBytes(n)) };
  const assembler = await Assembler.open(download, parts, options.signal);
  // `connections` workers take the parts in order, so parts finish roughly in order and the
  // join (append to the head, hash) runs while later parts still download.
  const queue = parts.filter((p) => p.index >= assembler.joined);
  let failure: unknown;
  const worker = async () => {
    for (let part = queue.shift(); part && failure === undefined; part = queue.shift()) {
      try {
        await fetchPart(download, part, counting, part.index === 0 ? (chunk) => assembler.headChunk(chunk) : undefined);
        assembler.partDone(part.index);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  // Every worker settles before a failure is reported: none may still write after a cancel.
  await Promise.all(Array.from({ length: Math.max(1, options.connections) }, worker));
  if (failure !== undefined) {
    await assembler.settle();
    throw failure;
  }
  return { sha256: await assembler.finish(), fetched };
}

async function fetchPart(download: FileDownload, part: Part, options: DownloadOptions, onChunk?: (chunk: Buffer) => void): Promise<void> {
  let failures = 0;
  for (;;) {
    // Part 1's file only grows past its part once the part is complete (later parts join it).
    const done = Math.min(part.length, await sizeOf(part.file));
    if (done === part.length) return;
    const before = done;
    try {
      await fetchRange(download, part, done, options, onChunk);
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
async function fetchRange(download: FileDownload, part: Part, done: number, options: DownloadOptions, onChunk?: (chunk: Buffer) => void): Promise<void> {
  const stall = new AbortController();
  const signal = AbortSignal.any([options.signal, stall.signal]);
  // One watchdog per request rather than a timer reset per chunk.
  let lastByteAt = Date.now();
  const watchdog = setInterval(() => Date.now() - lastByteAt >= options.stallMs && stall.abort(new Error('stalled')), Math.min(1000, options.stallMs / 4));
  const first = part.start + done;
  const last = part.start + part.length - 1;
  await mkdir(dirname(part.file), { recursive: true });
  const file = await open(part.file, 'a');
  // Chunks are written in batches of ~1 MiB: a write per network chunk (often 16-64 KiB)
  // costs more than the bytes. Bytes not yet written are not on disk, so a crash only
  // means they are fetched again, never that a part file claims bytes it lacks.
  const batch: Buffer[] = [];
  let batched = 0;
  let wrote = 0;
  const flush = async () => {
    if (batched === 0) return;
    const buffers = batch.splice(0);
    const bytes = batched;
    batched = 0;
    await file.writev(buffers).catch(diskError);
    for (const buffer of buffers) onChunk?.(buffer);
    wrote += bytes;
    options.onBytes(bytes);
  };
  try {
    const answer = await options.hub.open(download.url, { range: `bytes=${first}-${last}` }, { signal });
    if (answer.status !== 206) {
      const text = await answer.body.text().catch(() => '');
      if (answer.status === 200) throw new ModelError('model.pull_failed', `${download.url}: the host answered 200 to a Range request`, {});
      const error = statusError(answer.status, download.url, text);
      throw answer.status >= 500 || answer.status === 429 ? new ModelError('model.pull_failed', error.message, error.details) : error;
    }
    try {
      for await (const chunk of answer.body as AsyncIterable<Buffer>) {
        lastByteAt = Date.now();
        const take = Math.min(chunk.length, part.length - done - wrote - batched);
        if (take <= 0) break;
        batch.push(take === chunk.length ? chunk : chunk.subarray(0, take));
        batched += take;
        if (batched >= WRITE_BATCH) await flush();
      }
    } finally {
      // What arrived before a drop is kept: the retry starts after it.
      if (!(signal.aborted && options.signal.aborted)) await flush();
    }
    if (done + wrote < part.length) throw new ModelError('model.pull_failed', `${download.url}: the connection closed after ${wrote} bytes of ${part.length - done}`, {});
  } catch (error) {
    if (stall.signal.aborted && !options.signal.aborted) throw new ModelError('model.pull_failed', `${download.url}: no bytes for ${options.stallMs / 1000} s`, {});
    if (error instanceof Error && !(error instanceof ModelError) && !options.signal.aborted && !(error as DiskError).disk) {
      throw new ModelError('model.pull_failed', `${download.url}: ${error.message}`, {});
    }
    throw error;
  } finally {
    clearInterval(watchdog);
    await file.close();
  }
}

type DiskError = Error & { disk?: true; code?: string };

function diskError(error: DiskError): never {
  if (error.code === 'ENOSPC') throw new ModelError('model.disk_full', `the disk is full: ${error.message}`, {});
  error.disk = true;
  throw error;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}
