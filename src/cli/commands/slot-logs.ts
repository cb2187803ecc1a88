// svc slot logs --follow: read GET /api/slots/<name>/logs?follow=true, a server-sent event
// stream with one `data: <JSON string>` event per engine log line, until Ctrl-C.
import type { ApiClient } from '../client.js';
import { print } from '../output.js';

/** Split SSE text into the data of complete events; returns what is left for the next chunk. */
export function parseSseEvents(buffer: string, onData: (data: string) => void): string {
  const events = buffer.split(/\r?\n\r?\n/);
  const rest = events.pop() ?? '';
  for (const event of events) {
    const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(l.startsWith('data: ') ? 6 : 5));
    if (data.length > 0) onData(data.join('\n'));
  }
  return rest;
}

export async function followLogs(client: ApiClient, name: string, lines: number): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const response = await client.followSlotLogs(name, lines, controller.signal);
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body) {
      buffer = parseSseEvents(buffer + decoder.decode(chunk as Uint8Array, { stream: true }), (data) => {
        let line: unknown;
        try {
          line = JSON.parse(data);
        } catch {
          line = data;
        }
        print(typeof line === 'string' ? line : JSON.stringify(line));
      });
    }
    process.stderr.write(`svc: the server closed the log stream of slot ${name}\n`);
  } catch (error) {
    if (controller.signal.aborted) return; // Ctrl-C: a normal end
    throw error;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
