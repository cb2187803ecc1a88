// Repos for the Hugging Face endpoint fixture, made from the project's tiny GGUF writer, and
// a gateway pointed at it.
import { buildTinyModel } from '../../src/engines/gguf/tiny-model.js';
import { encodeGguf, gguf } from '../../src/engines/gguf/writer.js';
// @ts-expect-error: a plain .mjs fixture without types
import { startHfEndpoint } from '../fixtures/hf-endpoint.mjs';
import { api, type Gateway } from './gateway.js';
import { waitFor } from './wait.js';

export interface HfEndpoint {
  url: string;
  cdnUrl: string;
  token: string;
  faults: { dropAfterBytes: number; dropTimes: number; stallAfterBytes: number; stallTimes: number; corrupt: boolean; bytesPerSecond: number };
  stats: { bytesServed: number; cdnRequests: Array<{ path: string; range: string | null; authorization: string | null }>; apiRequests: Array<{ method: string; path: string; authorization: string | null }> };
  sha256(buffer: Buffer): string;
  /** CDN answers the fixture is still writing (and counting bytes for). */
  answersInFlight(): number;
  /** Open connections to the CDN, idle keep-alive ones included. */
  cdnConnections(): Promise<number>;
  close(): Promise<void>;
}

export interface FixtureRepo {
  commit: string;
  files: Record<string, Buffer>;
  gated?: boolean;
  extraTree?: unknown[];
  /** List the tree in pages of this many entries. */
  pageSize?: number;
}

export const startHf = (repos: Record<string, FixtureRepo>): Promise<HfEndpoint> => startHfEndpoint({ repos });

export const TINY = buildTinyModel();
export const commitOf = (c: string) => c.repeat(40).slice(0, 40);

/** A GGUF `bytes` long: a header a pull can read (llama shape), then filler. */
export function paddedGguf(bytes: number, meta: Record<string, number> = {}): Buffer {
  const header = encodeGguf({
    metadata: {
      'general.architecture': gguf.string('llama'),
      'llama.context_length': gguf.uint32(meta.context ?? 4096),
      'llama.block_count': gguf.uint32(meta.layers ?? 2),
      'llama.embedding_length': gguf.uint32(meta.embedding ?? 64),
      'llama.attention.head_count': gguf.uint32(4),
      'llama.attention.head_count_kv': gguf.uint32(2),
    },
    tensors: [],
  });
  const out = Buffer.alloc(bytes);
  header.copy(out);
  for (let i = header.length; i < bytes; i++) out[i] = (i * 2654435761) >>> 24;
  return out;
}

type Job = { state: string; error: { code: string } | null; [key: string]: unknown };

export async function pull(gw: Gateway, id: string, body: Record<string, unknown>): Promise<{ status: number; json: Job }> {
  return api(gw.url, `/api/models/${id}/pull`, { method: 'POST', body });
}

/** Wait for the pull of `id` to end; returns its job. */
export async function settled(gw: Gateway, id: string): Promise<Job> {
  const status = async () => (await api(gw.url, `/api/models/${id}/pull/status`)).json as Job;
  return waitFor(status, { what: `the pull of ${id} to end`, until: (job) => ['done', 'failed', 'cancelled'].includes(job.state), timeout: 60_000, interval: 100 });
}
