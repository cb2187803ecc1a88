// One health check of one replica target over HTTP: its models and its load, read the way
// each kind publishes them (load-readers.ts). A check that does not answer in time, answers
// an error status, or answers something unreadable fails with one line saying which call.
// Headers carry tokens: they are sent, never put in a message.
import { PEER_HOP_HEADER } from './hop.js';
import { loadFromLlamaSlots, loadFromStatus, loadFromVllmMetrics, type ReplicaLoad } from './load-readers.js';

export type TargetKind = 'peer' | 'vllm' | 'llama-server';

export interface ProbeInput {
  kind: TargetKind;
  /** A peer's root URL, or an upstream's base_url (with /v1). */
  baseUrl: string;
  origin: string;
  headers: Record<string, string>;
  /** An upstream's configured model list; null = ask it. */
  staticModels: readonly string[] | null;
  timeoutMs: number;
}

export interface ProbeResult {
  models: string[];
  load: ReplicaLoad;
}

async function get(url: string, input: ProbeInput, signal: AbortSignal): Promise<Response> {
  // The hop header on a health check too: a peer's own checks never count as client traffic.
  const response = await fetch(url, { headers: { accept: 'application/json', ...input.headers, [PEER_HOP_HEADER]: '1' }, signal }).catch((error: unknown) => {
    const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    if (signal.aborted) throw new Error(`GET ${url} did not answer within ${input.timeoutMs / 1000} s`);
    throw new Error(`GET ${url} failed: ${e.cause?.code ?? e.cause?.message ?? e.message ?? String(error)}`);
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`GET ${url} answered HTTP ${response.status}`);
  }
  return response;
}

async function modelIds(url: string, input: ProbeInput, signal: AbortSignal): Promise<string[]> {
  const body = (await (await get(url, input, signal)).json()) as { data?: Array<{ id?: unknown }> };
  if (!Array.isArray(body?.data)) throw new Error(`GET ${url}: the answer has no "data" list`);
  return [...new Set(body.data.map((m) => m?.id).filter((id): id is string => typeof id === 'string' && id !== ''))];
}

export async function probeTarget(input: ProbeInput): Promise<ProbeResult> {
  const signal = AbortSignal.timeout(input.timeoutMs);
  if (input.kind === 'peer') {
    const [models, status] = await Promise.all([
      modelIds(`${input.baseUrl}/v1/models`, input, signal),
      get(`${input.baseUrl}/api/status`, input, signal).then((r) => r.json()),
    ]);
    // /v1/models names a gateway's llm slots by slot name; the model ids its slots serve are in its status.
    const slotModels = ((status as { slots?: { slots?: Array<{ model?: unknown; enabled?: boolean }> } }).slots?.slots ?? [])
      .filter((s) => s.enabled !== false && typeof s.model === 'string').map((s) => s.model as string);
    return { models: [...new Set([...models, ...slotModels])], load: loadFromStatus(status) };
  }
  await get(`${input.origin}/health`, input, signal).then((r) => r.body?.cancel());
  const models = input.staticModels ? [...input.staticModels] : await modelIds(`${input.baseUrl}/models`, input, signal);
  if (input.kind === 'vllm') {
    const text = await (await get(`${input.origin}/metrics`, input, signal)).text();
    return { models, load: loadFromVllmMetrics(text, models) };
  }
  // llama-server answers 501 on /slots unless started with --slots: its load is then unknown (0).
  const slots = await get(`${input.origin}/slots`, input, signal).then((r) => r.json(), () => []);
  return { models, load: loadFromLlamaSlots(slots, models) };
}
