// A GGUF header read over HTTP Range requests, so a pull knows the architecture, the native
// context and the shape of the KV cache before a byte of the weights moves. Headers with a
// large vocabulary run to a few MiB, so reads ask for 1 MiB at least.
import { readGgufHeaderFrom, type ByteSource, type GgufHeader } from '../../engines/gguf/reader.js';
import { ModelError } from '../../protocol/errors.js';
import { statusError, type Hub } from './hub.js';

const REMOTE_CHUNK = 1024 * 1024;
/** A header bigger than this is not read (the fit check then goes by file size alone). */
const MAX_HEADER_BYTES = 64 * 1024 * 1024;

/** Tries per range read: a dropped or stalled connection is retried like a download's. */
const ATTEMPTS = 3;

export async function readRemoteGgufHeader(hub: Hub, url: string, size: number, label: string, options: { signal?: AbortSignal; stallMs: number }): Promise<GgufHeader> {
  let fetched = 0;
  const source: ByteSource = {
    size,
    label,
    chunk: REMOTE_CHUNK,
    read: async (buffer, offset, length, position) => {
      fetched += length;
      if (fetched > MAX_HEADER_BYTES) throw new ModelError('model.pull_failed', `${label}: the GGUF header is larger than ${MAX_HEADER_BYTES} bytes`, {});
      for (let attempt = 1; ; attempt++) {
        try {
          return await readRange(hub, url, label, buffer, offset, length, position, options);
        } catch (error) {
          const retry = error instanceof ModelError ? error.code === 'model.pull_failed' : !options.signal?.aborted;
          if (!retry || attempt >= ATTEMPTS || options.signal?.aborted) throw error;
        }
      }
    },
  };
  return readGgufHeaderFrom(source, { maxArrayLength: 1024 });
}

async function readRange(hub: Hub, url: string, label: string, buffer: Buffer, offset: number, length: number, position: number, options: { signal?: AbortSignal; stallMs: number }): Promise<number> {
  const timeout = AbortSignal.timeout(options.stallMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const answer = await hub.open(url, { range: `bytes=${position}-${position + length - 1}` }, { signal });
    if (answer.status !== 206 && !(answer.status === 200 && position === 0)) {
      const text = await answer.body.text().catch(() => '');
      throw answer.status === 200 ? new ModelError('model.pull_failed', `${label}: the host ignores Range requests`, {}) : statusError(answer.status, label, text);
    }
    let got = 0;
    for await (const chunk of answer.body as AsyncIterable<Buffer>) {
      const take = Math.min(chunk.length, length - got);
      chunk.copy(buffer, offset + got, 0, take);
      got += take;
      if (got >= length) break;
    }
    if (got >= length) answer.body.destroy();
    return got;
  } catch (error) {
    if (timeout.aborted && !options.signal?.aborted) throw new ModelError('model.pull_failed', `${label}: no answer to a header read within ${options.stallMs / 1000} s`, {});
    throw error;
  }
}
