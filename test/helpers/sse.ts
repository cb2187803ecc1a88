// Reading server-sent events the way OpenAI streams them (docs/routing.md, "On-demand loading and streaming"): each
// event a `data: <JSON>` line and a blank line, the last one the literal `data: [DONE]`.

/** Split a finished SSE body into its events' data; throws when an event is not `data: `. */
export function sseData(text: string): string[] {
  if (!text.endsWith('\n\n')) throw new Error(`an SSE body ends with a blank line; got ${JSON.stringify(text.slice(-40))}`);
  return text.slice(0, -2).split('\n\n').map((event) => {
    if (!event.startsWith('data: ') || event.includes('\n')) throw new Error(`not a single-line data event: ${JSON.stringify(event)}`);
    return event.slice('data: '.length);
  });
}

/** An SSE response read event by event while it is still streaming. */
export class EventReader {
  private buffer = '';
  private readonly decoder = new TextDecoder();

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** The next event's data, or null when the stream ended. */
  async next(): Promise<string | null> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const event = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        // Comments (": svc: loading slot ...") keep a waiting stream open; they carry no data.
        if (event.startsWith(':')) continue;
        return event.startsWith('data: ') ? event.slice('data: '.length) : event;
      }
      const { value, done } = await this.reader.read();
      if (done) return null;
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  /** The next event that carries generated content. */
  async nextContent(): Promise<string> {
    for (;;) {
      const data = await this.next();
      if (data === null || data === '[DONE]') throw new Error('the stream ended before any content');
      const delta = JSON.parse(data).choices?.[0]?.delta;
      if (typeof delta?.content === 'string' && delta.content !== '') return delta.content;
    }
  }
}
