// An engine log followed live: GET /api/slots/<name>/logs?follow=true is a server-sent event
// stream (the tail, then each new line as one event whose data is the line as JSON). Read
// with fetch, not EventSource, so that a refusal shows its code and message and the stream
// is not silently reopened (which would send the tail again); it ends when `signal` aborts.
import { ApiError, errorFromResponse } from '../../api-error.js';
import { readSse } from '../../sse-read.js';

/** Lines kept on screen: the gateway keeps 500 in memory, so the page keeps as many. */
export const MAX_LOG_LINES = 500;

/** The newest `max` lines of `lines` followed by `added`. */
export function appendLines(lines: readonly string[], added: readonly string[], max = MAX_LOG_LINES): string[] {
  const all = [...lines, ...added];
  return all.length > max ? all.slice(all.length - max) : all;
}

/** Follow until the stream ends (resolves) or fails (rejects with an ApiError); an abort resolves. */
export async function followLog(url: string, onLines: (lines: string[]) => void, signal: AbortSignal): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'text/event-stream' }, signal, cache: 'no-store' });
  } catch (error) {
    if (signal.aborted) return;
    throw new ApiError('network.unreachable', `the gateway did not answer: ${(error as Error).message}`);
  }
  if (!response.ok || response.body === null) throw await errorFromResponse(response);
  // Lines that arrive together (the tail) are handed on together: one render, not hundreds.
  let batch: string[] = [];
  const handOn = () => {
    if (batch.length === 0) return;
    onLines(batch);
    batch = [];
  };
  try {
    await readSse(response.body, { onEvent: (message) => void batch.push(JSON.parse(message.data) as string) }, handOn);
  } catch (error) {
    if (signal.aborted) return;
    throw new ApiError('logs.stream_broken', `the log stream broke off: ${(error as Error).message}`);
  }
}
