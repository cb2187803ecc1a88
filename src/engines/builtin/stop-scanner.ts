// Stop strings on a stream of text chunks: text is released as soon as no stop string can
// start in it, held while it could be the beginning of one, and cut where one matches (the
// stop string itself is not part of the answer, as in OpenAI and llama-server). Each chunk
// carries items (its tokens' logprobs) that go out with it, so a client never gets the
// probabilities of text it was not sent... except the one token a stop string cuts in two.

export interface TextChunk<T> {
  text: string;
  items: T[];
}

export interface Scan<T> {
  release: TextChunk<T>[];
  /** A stop string matched: nothing after `release` belongs to the answer. */
  stopped: boolean;
}

export class StopScanner<T> {
  private held: TextChunk<T>[] = [];

  constructor(private readonly stops: readonly string[]) {}

  push(chunk: TextChunk<T>): Scan<T> {
    this.held.push(chunk);
    const text = this.held.map((c) => c.text).join('');
    const match = this.firstMatch(text);
    if (match !== null) return { release: this.take(match, true), stopped: true };
    return { release: this.take(text.length - this.partialStopLength(text), false), stopped: false };
  }

  /** The end of the answer: whatever was held for a stop string that never came. */
  flush(): TextChunk<T>[] {
    const rest = this.held;
    this.held = [];
    return rest;
  }

  private firstMatch(text: string): number | null {
    let first: number | null = null;
    for (const stop of this.stops) {
      const at = text.indexOf(stop);
      if (at >= 0 && (first === null || at < first)) first = at;
    }
    return first;
  }

  /** The longest end of `text` that a stop string begins with. */
  private partialStopLength(text: string): number {
    let longest = 0;
    for (const stop of this.stops) {
      for (let n = Math.min(stop.length - 1, text.length); n > longest; n--) {
        if (text.endsWith(stop.slice(0, n))) {
          longest = n;
          break;
        }
      }
    }
    return longest;
  }

  /** Release the held chunks up to character `end`: whole chunks, or (cut) the chunk there shortened. */
  private take(end: number, cut: boolean): TextChunk<T>[] {
    const out: TextChunk<T>[] = [];
    let offset = 0;
    while (this.held.length > 0) {
      const chunk = this.held[0]!;
      if (offset + chunk.text.length <= end) {
        out.push(chunk);
        offset += chunk.text.length;
        this.held.shift();
        continue;
      }
      if (cut && offset < end) out.push({ text: chunk.text.slice(0, end - offset), items: chunk.items });
      break;
    }
    if (cut) this.held = [];
    return out;
  }
}
