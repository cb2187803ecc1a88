// Every failure the dashboard shows is an ApiError with the gateway's `code` and `message`
// (its envelope `{error:{code,message,details}}`), or one of ours for what never reached it.
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/** The envelope of a failed answer; a body that is not one (a proxy's HTML page) says what came instead. */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
    const error = body.error;
    if (error && typeof error.code === 'string' && typeof error.message === 'string') {
      const details = typeof error.details === 'object' && error.details !== null ? (error.details as Record<string, unknown>) : {};
      return new ApiError(error.code, error.message, details, response.status);
    }
  } catch {
    // Not JSON: fall through.
  }
  return new ApiError('http.unexpected_answer', `HTTP ${response.status} ${response.statusText}: ${text.slice(0, 200)}`.trim(), {}, response.status);
}

/** GET a JSON payload from /api or /v1; a failure throws its ApiError. */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, { headers: { accept: 'application/json' }, ...(signal && { signal }) });
  } catch (error) {
    throw new ApiError('network.unreachable', `the gateway did not answer: ${(error as Error).message}`);
  }
  if (!response.ok) throw await errorFromResponse(response);
  return (await response.json()) as T;
}

/**
 * Send a JSON body (or none) to /api or /v1 and read its JSON answer; a failure throws its
 * ApiError, whose `details.problems` (path, message) a form shows beside each field.
 */
export async function sendJson<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      // Always JSON, even with no body: a write no web form could send, whatever headers the
      // browser adds (request.form_post, docs/auth.md).
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      ...(signal && { signal }),
    });
  } catch (error) {
    throw new ApiError('network.unreachable', `the gateway did not answer: ${(error as Error).message}`);
  }
  if (!response.ok) throw await errorFromResponse(response);
  const text = await response.text();
  return (text ? JSON.parse(text) : null) as T;
}
