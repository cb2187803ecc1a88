// Reading a replica's load from what each kind of server publishes (docs/scaling.md): a svc
// peer's GET /api/status, vLLM's Prometheus GET /metrics, llama-server's GET /slots. Pure
// parsers over the answers' bodies.

export interface ReplicaLoad {
  /** Model ids loaded and ready now. */
  loaded: string[];
  /** Requests being served (running and queued for vLLM). */
  in_flight: number;
  /** Free host memory the peer reports, MiB; null when unknown. */
  free_memory_mib: number | null;
}

/** A svc gateway's /api/status: ready slots' models, their in-flight requests, its free memory. */
export function loadFromStatus(body: unknown): ReplicaLoad {
  const status = body as { slots?: { slots?: Array<{ state?: string; model?: string; in_flight?: number }> }; load?: { in_flight?: number; free_memory_mib?: number | null } } | null;
  const slots = status?.slots?.slots;
  if (!Array.isArray(slots)) throw new Error('the /api/status answer has no slots list');
  const loaded = slots.filter((s) => s.state === 'ready' && typeof s.model === 'string').map((s) => s.model as string);
  const inFlight = status?.load?.in_flight ?? slots.reduce((sum, s) => sum + (typeof s.in_flight === 'number' ? s.in_flight : 0), 0);
  return { loaded: [...new Set(loaded)], in_flight: inFlight, free_memory_mib: status?.load?.free_memory_mib ?? null };
}

/**
 * The sum of a Prometheus gauge over its label sets, from the text exposition format; null
 * when the metric is absent. `vllm:num_requests_running{model_name="m"} 3` counts 3.
 */
export function promGauge(text: string, metric: string): number | null {
  let total: number | null = null;
  for (const line of text.split('\n')) {
    if (!line.startsWith(metric) || line.startsWith('#')) continue;
    const rest = line.slice(metric.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue; // another metric with this prefix
    const value = Number(rest.slice(rest.lastIndexOf('}') + 1).trim().split(/\s+/)[0]);
    if (Number.isFinite(value)) total = (total ?? 0) + value;
  }
  return total;
}

/** vLLM's load: running plus waiting requests; its served models are loaded by definition. */
export function loadFromVllmMetrics(text: string, models: readonly string[]): ReplicaLoad {
  const running = promGauge(text, 'vllm:num_requests_running');
  const waiting = promGauge(text, 'vllm:num_requests_waiting');
  if (running === null && waiting === null) throw new Error('the /metrics answer has no vllm:num_requests_running or vllm:num_requests_waiting');
  return { loaded: [...models], in_flight: (running ?? 0) + (waiting ?? 0), free_memory_mib: null };
}

/** llama-server's /slots: the slots processing a request; its model is loaded once /health is ok. */
export function loadFromLlamaSlots(body: unknown, models: readonly string[]): ReplicaLoad {
  if (!Array.isArray(body)) throw new Error('the /slots answer is not a list');
  const busy = body.filter((s) => (s as { is_processing?: boolean } | null)?.is_processing === true).length;
  return { loaded: [...models], in_flight: busy, free_memory_mib: null };
}
