// What a streaming omni client receives (docs/omni.md, "Streaming"): one SSE stream made of
// every round's chunks as the model sends them, under one chat.completion.chunk id, with an
// svc_tool chunk for each step of each tool call between the rounds. An intermediate round's
// [DONE], usage-only chunk and finish_reason are held back (the answer has not finished); the
// final round's go out as the model sent them. Tool-call indexes go on counting across rounds,
// so a client that accumulates tool calls by index keeps them apart.
import type { SvcToolDelta } from '../protocol/mcp.js';

type Chunk = Record<string, unknown> & { choices?: Array<Record<string, unknown>> };

/**
 * The bytes of the client's stream, queued as the loop produces them and taken by whoever
 * reads the answer (the front door's writer). A reader that leaves calls `onLeave` (the loop
 * is aborted with it). The loop's output is a model's tokens and tool steps, so nothing is
 * held back for back-pressure (the model is the slower side).
 */
export class Outbox implements AsyncIterable<Uint8Array> {
  private readonly queue: Buffer[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  constructor(private readonly onLeave: () => void) {}

  write(text: string): void {
    if (this.closed) return;
    this.queue.push(Buffer.from(text));
    this.wake?.();
  }

  end(): void {
    this.closed = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    let ended = false;
    try {
      for (;;) {
        const next = this.queue.shift();
        if (next) yield next;
        else if (this.closed) break;
        else await new Promise<void>((resolve) => (this.wake = resolve));
      }
      ended = true;
    } finally {
      this.wake = undefined;
      if (!ended) this.onLeave();
    }
  }
}

export class OmniStream {
  private opened = false;
  private held: Chunk[] = [];
  private indexBase = 0;
  private roundCalls = 0;
  private created = Math.floor(Date.now() / 1000);
  private model = '';

  /** `onOpen`: the stream's head may go (its first bytes are there). */
  constructor(private readonly out: Outbox, readonly id: string, private readonly onOpen: () => void) {}

  get isOpen(): boolean {
    return this.opened;
  }

  /** The head, once: the first round's 2xx (or its slot-loading comment) opens it. */
  open(): void {
    if (this.opened) return;
    this.opened = true;
    this.onOpen();
  }

  comment(text: string): void {
    this.open();
    this.write(`:${text}\n\n`);
  }

  /** A chunk of the model's: the end of a round (finish_reason, usage only) is held until the round ends. */
  chunk(chunk: Chunk): void {
    this.open();
    if (typeof chunk.model === 'string') this.model = chunk.model;
    if (typeof chunk.created === 'number') this.created = chunk.created;
    chunk.id = this.id;
    const choices = chunk.choices ?? [];
    for (const choice of choices) this.renumber(choice);
    if (choices.length === 0 || choices.some((c) => c.finish_reason != null)) {
      this.held.push(chunk);
      return;
    }
    this.send(chunk);
  }

  /** A round ended: a final one lets its held chunks go; an intermediate one drops its ends. */
  endRound(final: boolean): void {
    const held = this.held;
    this.held = [];
    this.indexBase += this.roundCalls;
    this.roundCalls = 0;
    for (const chunk of held) {
      if (final) {
        this.send(chunk);
        continue;
      }
      // An intermediate round's last delta may still carry content: it goes, without its finish_reason.
      const choices = (chunk.choices ?? []).map((c) => ({ ...c, finish_reason: null })).filter((c) => hasDelta(c));
      if (choices.length > 0) this.send({ ...chunk, choices, usage: undefined });
    }
  }

  tool(delta: SvcToolDelta): void {
    this.open();
    this.send({ id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [{ index: 0, delta: { svc_tool: delta }, finish_reason: null }] });
  }

  done(): void {
    this.write('data: [DONE]\n\n');
    this.out.end();
  }

  /** The loop failed after the stream opened: one SSE error event ends it. */
  fail(event: string): void {
    this.write(event);
    this.out.end();
  }

  private renumber(choice: Record<string, unknown>): void {
    const calls = (choice.delta as { tool_calls?: Array<{ index?: number }> } | undefined)?.tool_calls;
    if (!Array.isArray(calls)) return;
    for (const call of calls) {
      const index = typeof call.index === 'number' ? call.index : 0;
      this.roundCalls = Math.max(this.roundCalls, index + 1);
      call.index = index + this.indexBase;
    }
  }

  private send(chunk: Chunk): void {
    this.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }

  private write(text: string): void {
    this.out.write(text);
  }
}

function hasDelta(choice: Record<string, unknown>): boolean {
  const delta = choice.delta as Record<string, unknown> | undefined;
  return !!delta && Object.values(delta).some((v) => v !== null && v !== undefined && v !== '');
}
