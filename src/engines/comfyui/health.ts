// ComfyUI's health: GET /system_stats answers 200 with
// {system: {python_version, ...}, devices: [...]} once the server is up. Anything else that
// answers is still loading; no answer is down. Bounded like the generic probe; never throws.
import { HEALTH_TIMEOUT_MS } from '../llama-server/health.js';
import type { HealthState } from '../types.js';

export const SYSTEM_STATS_PATH = '/system_stats';

function hasPythonVersion(body: string): boolean {
  try {
    const json = JSON.parse(body) as { system?: { python_version?: unknown } } | null;
    return typeof json?.system?.python_version === 'string';
  } catch {
    return false;
  }
}

export async function probeSystemStats(baseUrl: string, signal: AbortSignal, timeoutMs = HEALTH_TIMEOUT_MS): Promise<HealthState> {
  try {
    const response = await fetch(`${baseUrl.replace(/\/+$/, '')}${SYSTEM_STATS_PATH}`, {
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      headers: { accept: 'application/json' },
    });
    const body = await response.text();
    return response.status === 200 && hasPythonVersion(body) ? 'ready' : 'loading';
  } catch {
    return 'down';
  }
}
