import { describe, expect, it } from 'vitest';
import { readSse } from './sse-read.js';

function bodyOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe('readSse', () => {
  it('parses events split across chunks, comments too, and runs afterChunk once a chunk', async () => {
    const seen: string[] = [];
    let chunks = 0;
    await readSse(bodyOf([': svc: loading slot chat\n\ndata: {"a"', ':1}\n\nda', 'ta: [DONE]\n\n']), {
      onEvent: (message) => seen.push(`event ${message.data}`),
      onComment: (comment) => seen.push(`comment ${comment.trim()}`),
    }, () => chunks++);
    expect(seen).toEqual(['comment svc: loading slot chat', 'event {"a":1}', 'event [DONE]']);
    expect(chunks).toBe(3);
  });
});
