// Running one workflow on a ComfyUI engine, the way ComfyUI's HTTP API works
// (the generation flow):
//   1. POST /prompt {prompt, client_id} -> {prompt_id}; a 400 carries node_errors.
//   2. GET /history/<prompt_id> until the entry says status.completed (every 0.5 s, up to
//      10 min); status_str "error" is a failed execution.
//   3. GET /view?filename&subfolder&type for each image the outputs list.
// A client that leaves aborts the wait, and the prompt is taken off ComfyUI's queue (and
// interrupted if it is running) so the GPU stops working for nobody.
import { DispatchError, ImageError } from '../../protocol/errors.js';
import { upstreamError } from '../forward.js';
import type { ComfyWorkflow } from './workflow.js';

export interface ComfyImageRef {
  filename: string;
  subfolder: string;
  type: string;
}

export interface ComfyRun {
  promptId: string;
  images: Array<{ ref: ComfyImageRef; png: Buffer }>;
}

export interface ComfyRunOptions {
  clientId: string;
  signal: AbortSignal;
  pollMs?: number;
  timeoutMs?: number;
  /** Details every error carries (the slot name). */
  target: Record<string, unknown>;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface HistoryEntry {
  status?: { status_str?: string; completed?: boolean; messages?: unknown[] };
  outputs?: Record<string, { images?: ComfyImageRef[] }>;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(timer); reject(signal.reason); };
    signal.addEventListener('abort', onAbort, { once: true });
  });

async function call(url: string, init: RequestInit, target: Record<string, unknown>): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if ((init.signal as AbortSignal | undefined)?.aborted) throw error;
    throw upstreamError(error, target);
  }
}

async function json<T>(response: Response): Promise<T | undefined> {
  try {
    return (await response.json()) as T;
  } catch {
    return undefined;
  }
}

export async function runComfyWorkflow(baseUrl: string, workflow: ComfyWorkflow, options: ComfyRunOptions): Promise<ComfyRun> {
  const { signal, target } = options;
  const submitted = await call(`${baseUrl}/prompt`, {
    method: 'POST', signal, headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: workflow, client_id: options.clientId }),
  }, target);
  const answer = await json<{ prompt_id?: string; error?: unknown; node_errors?: unknown }>(submitted);
  if (submitted.status === 400) {
    throw new ImageError('image.workflow_invalid', 'the image engine rejected the workflow', { ...target, error: answer?.error ?? null, node_errors: answer?.node_errors ?? null });
  }
  if (!submitted.ok || typeof answer?.prompt_id !== 'string') {
    throw new ImageError('image.generation_failed', `the image engine answered ${submitted.status} to the prompt`, { ...target, status: submitted.status, answer: answer ?? null });
  }
  const promptId = answer.prompt_id;
  const cancel = () => void cancelPrompt(baseUrl, promptId);
  signal.addEventListener('abort', cancel, { once: true });
  try {
    const entry = await waitForHistory(baseUrl, promptId, options);
    const refs = Object.values(entry.outputs ?? {}).flatMap((o) => o.images ?? []).filter((r) => r.type === 'output');
    if (refs.length === 0) throw new ImageError('image.generation_failed', 'the workflow finished without an image', { ...target, prompt_id: promptId });
    const images = [];
    for (const ref of refs) images.push({ ref, png: await fetchImage(baseUrl, ref, options) });
    return { promptId, images };
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

async function waitForHistory(baseUrl: string, promptId: string, options: ComfyRunOptions): Promise<HistoryEntry> {
  const { signal, target } = options;
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  for (;;) {
    const response = await call(`${baseUrl}/history/${encodeURIComponent(promptId)}`, { signal }, target);
    const entry = (await json<Record<string, HistoryEntry>>(response))?.[promptId];
    if (entry?.status?.status_str === 'error') {
      throw new ImageError('image.generation_failed', 'the image engine failed while running the workflow', { ...target, prompt_id: promptId, messages: entry.status.messages ?? [] });
    }
    if (entry?.status?.completed) return entry;
    if (Date.now() >= deadline) {
      throw new DispatchError('dispatch.upstream_timeout', `the image engine did not finish prompt ${promptId} in time`, { ...target, prompt_id: promptId });
    }
    await sleep(options.pollMs ?? 500, signal);
  }
}

async function fetchImage(baseUrl: string, ref: ComfyImageRef, options: ComfyRunOptions): Promise<Buffer> {
  const query = new URLSearchParams({ filename: ref.filename, subfolder: ref.subfolder ?? '', type: ref.type });
  const response = await call(`${baseUrl}/view?${query.toString()}`, { signal: options.signal }, options.target);
  const png = Buffer.from(await response.arrayBuffer());
  if (!response.ok || !png.subarray(0, 8).equals(PNG_SIGNATURE)) {
    throw new ImageError('image.generation_failed', `the image engine did not return a PNG for ${ref.filename} (HTTP ${response.status})`, { ...options.target, filename: ref.filename, status: response.status });
  }
  return png;
}

/** Best effort: take the prompt off the queue, and stop it if it is the one running. */
async function cancelPrompt(baseUrl: string, promptId: string): Promise<void> {
  const post = (path: string, body: unknown) =>
    fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(3_000) }).catch(() => undefined);
  await post('/queue', { delete: [promptId] });
  await post('/interrupt', { prompt_id: promptId });
}
