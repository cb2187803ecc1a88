// The one loop that reads a fetch body as server-sent events: the dashboard's event stream,
// a followed engine log and the Playground's streamed answers all read through it. It
// resolves when the body ends and rejects as the read does (an abort, a broken stream): the
// caller says what that means for it.
import { createParser, type ParserCallbacks } from 'eventsource-parser';

/** Feed `body` to an SSE parser with these callbacks; `afterChunk` runs once each chunk is parsed. */
export async function readSse(body: ReadableStream<Uint8Array>, callbacks: ParserCallbacks, afterChunk?: () => void): Promise<void> {
  const parser = createParser(callbacks);
  const reader = body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    parser.feed(decoder.decode(value, { stream: true }));
    afterChunk?.();
  }
}
