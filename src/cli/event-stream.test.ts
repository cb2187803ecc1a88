import { describe, expect, it } from 'vitest';
import { eventData } from './event-stream.js';

async function dataOf(chunks: Array<string | Uint8Array>): Promise<string[]> {
  const encoder = new TextEncoder();
  async function* body() {
    for (const chunk of chunks) yield typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
  }
  const out: string[] = [];
  for await (const data of eventData(body())) out.push(data);
  return out;
}

describe('eventData', () => {
  it('gives the data of each event, its data lines joined; comments and events without data give nothing', async () => {
    expect(await dataOf(['data: {"a":1}\n\ndata:[DONE]\n\n'])).toEqual(['{"a":1}', '[DONE]']);
    expect(await dataOf(['data: one\ndata: two\n\n'])).toEqual(['one\ntwo']);
    expect(await dataOf([': svc: loading slot chat\n\nevent: ping\n\nid: 7\ndata: x\n\n'])).toEqual(['x']);
    expect(await dataOf(['data:\n\n'])).toEqual(['']);
  });

  it('reads CRLF and CR line ends, and ignores a leading BOM', async () => {
    expect(await dataOf(['data: a\r\n\r\ndata: b\r\rdata: c\n\n'])).toEqual(['a', 'b', 'c']);
    expect(await dataOf(['\uFEFFdata: d\n\n'])).toEqual(['d']);
  });

  it('does not depend on where the chunks split: mid-line, between CR and LF, inside a UTF-8 character', async () => {
    const bytes = new TextEncoder().encode('data: "héllo"\r\n\r\ndata: ünd\r\n\r\n');
    const whole = await dataOf([bytes]);
    expect(whole).toEqual(['"héllo"', 'ünd']);
    for (let cut = 1; cut < bytes.length; cut++) expect(await dataOf([bytes.slice(0, cut), bytes.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    expect(await dataOf([...bytes].map((b) => Uint8Array.of(b)))).toEqual(whole);
  });

  it('keeps an unfinished last event back, and reads nothing from no body', async () => {
    expect(await dataOf(['data: done\n\ndata: half'])).toEqual(['done']);
    expect(await dataOf([])).toEqual([]);
    const none: string[] = [];
    for await (const data of eventData(null)) none.push(data);
    expect(none).toEqual([]);
  });
});
