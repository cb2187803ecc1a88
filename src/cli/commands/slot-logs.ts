// svc slot logs --follow: read GET /api/slots/<name>/logs?follow=true, a server-sent event
// stream with one `data: <JSON string>` event per engine log line, until Ctrl-C.
import type { ApiClient } from '../client.js';
import { eventData } from '../event-stream.js';
import { print } from '../output.js';

export async function followLogs(client: ApiClient, name: string, lines: number): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const response = await client.followSlotLogs(name, lines, controller.signal);
    if (!response.body) return;
    for await (const data of eventData(response.body)) {
      let line: unknown;
      try {
        line = JSON.parse(data);
      } catch {
        line = data;
      }
      print(typeof line === 'string' ? line : JSON.stringify(line));
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
