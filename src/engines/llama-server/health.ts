// The generic health probe: GET /health, 3 s per request, bounded by the
// caller's signal too.
//   200 -> ready, unless its JSON says model_loaded: false (loading);
//   503 -> loading (llama-server answers 503 while it loads the model);
//   any other status -> GET /v1/models: 200 -> ready, anything else (no answer too) -> loading;
//   no answer (refused, reset, timed out) -> down.
// The probe never throws: a caller that aborts gets 'down' and is expected to check its
// own signal.
import type { Dispatcher } from 'undici';
import type { HealthState } from '../types.js';

export const HEALTH_TIMEOUT_MS = 3_000;

let probeAgent: Promise<Dispatcher> | undefined;

/**
 * One keep-alive undici Agent for every probe, imported on the first (the dispatcher loads
 * undici just after listen anyway). undici's request costs about half of what fetch does per
 * call, and a start waits on a probe of the engine's "ready" (docs/performance.md, cold slots).
 */
function agent(): Promise<Dispatcher> {
  return (probeAgent ??= import('undici').then(({ Agent }) => new Agent({ keepAliveTimeout: 10_000 })));
}

async function get(url: string, signal: AbortSignal): Promise<{ status: number; body: string } | undefined> {
  try {
    const { origin, pathname, search } = new URL(url);
    const response = await (await agent()).request({ origin, path: `${pathname}${search}`, method: 'GET', headers: { accept: 'application/json' }, signal });
    return { status: response.statusCode, body: await response.body.text() };
  } catch {
    return undefined;
  }
}

function saysNotLoaded(body: string): boolean {
  try {
    const json: unknown = JSON.parse(body);
    return typeof json === 'object' && json !== null && (json as { model_loaded?: unknown }).model_loaded === false;
  } catch {
    return false;
  }
}

export async function probeHealth(baseUrl: string, signal: AbortSignal, timeoutMs = HEALTH_TIMEOUT_MS): Promise<HealthState> {
  const base = baseUrl.replace(/\/+$/, '');
  const bounded = () => AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  const health = await get(`${base}/health`, bounded());
  if (!health) return 'down';
  if (health.status === 200) return saysNotLoaded(health.body) ? 'loading' : 'ready';
  if (health.status === 503) return 'loading';
  // It answered /health, so it is up; only a 200 on /v1/models makes it ready.
  const models = await get(`${base}/v1/models`, bounded());
  return models?.status === 200 ? 'ready' : 'loading';
}
