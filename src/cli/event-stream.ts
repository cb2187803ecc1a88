// Server-sent events as the CLI reads them (`svc slot logs --follow`, `svc model pull`,
// `svc run`). eventsource-parser does the framing the WHATWG spec defines ("Parsing an event
// stream": CR, LF or CRLF line ends, comments, multi-line data, a leading BOM), whatever way
// the bytes are split into chunks. The gateway's own byte scanner for upstream streams is
// another matter (dispatch/metrics.ts): it never decodes text on the hot path.
import { createParser } from 'eventsource-parser';

/**
 * The data of each event of a text/event-stream body, as the events complete. Comments and
 * events without a `data:` line yield nothing. Leaving the loop early cancels the body.
 */
export async function* eventData(body: AsyncIterable<Uint8Array> | null): AsyncGenerator<string> {
  if (!body) return;
  const complete: string[] = [];
  const parser = createParser({ onEvent: (event) => complete.push(event.data) });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* complete.splice(0);
  }
}
