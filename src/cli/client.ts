// The typed HTTP client every API-backed command uses. It knows routes and payloads, not
// presentation: commands decide how to print.
import { isErrorEnvelope, type ErrorEnvelope } from '../protocol/errors.js';
import { VERSION } from '../protocol/version.js';

/** The API could not be reached at all (refused, DNS, timeout). */
export class ApiUnreachableError extends Error {
  constructor(readonly baseUrl: string, readonly reason: string) {
    super(`cannot reach the svc API at ${baseUrl} (${reason})`);
  }
}

/** The API answered with an error envelope (or something that was not one). */
export class ApiError extends Error {
  constructor(readonly status: number, readonly envelope: ErrorEnvelope) {
    super(envelope.error.message);
  }

  get code(): string {
    return this.envelope.error.code;
  }
}

export interface StatusPayload {
  version: string;
  uptime_s: number;
  started_at: string;
  config_root: string;
  state_root: string;
  home_source: string;
  listen: { host: string; port: number };
  auth_enabled: boolean;
  config_warnings: string[];
  slots: {
    total: number;
    enabled: number;
    by_state: Record<string, number>;
    slots: Array<{ name: string; type: string; device: string; provider: string; port: number; enabled: boolean; state: string; model: string }>;
  };
}

export interface ReloadPayload {
  reloaded: boolean;
  warnings: string[];
  slots: string[];
}

export interface HardwarePayload {
  probe: unknown;
  host: { hostname: string; platform: string; arch: string; cpu_count: number; cpu_model: string; mem_total_mb: number; mem_available_mb: number };
}

const REQUEST_TIMEOUT_MS = 30_000;

export class ApiClient {
  constructor(readonly baseUrl: string) {}

  status = () => this.request<StatusPayload>('GET', '/api/status');
  reloadSettings = () => this.request<ReloadPayload>('POST', '/api/settings/reload');
  hardware = () => this.request<HardwarePayload>('GET', '/api/hardware');

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { 'x-svc-actor': 'cli', 'user-agent': `svc-cli/${VERSION}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new ApiUnreachableError(this.baseUrl, describeFetchFailure(error));
    }
    const text = await response.text();
    let payload: unknown;
    try {
      payload = text ? JSON.parse(text) : undefined;
    } catch {
      payload = undefined;
    }
    if (response.ok) return payload as T;
    const envelope = isErrorEnvelope(payload)
      ? payload
      : { error: { code: `system.http_${response.status}`, message: `HTTP ${response.status} from ${path}: ${text.slice(0, 200)}`, details: {} } };
    throw new ApiError(response.status, envelope);
  }
}

function describeFetchFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ECONNRESET':
      return 'connection reset';
    default:
      return (error as Error).name === 'TimeoutError' ? 'timed out' : (cause?.code ?? (error as Error).message);
  }
}
