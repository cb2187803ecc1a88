// What a streaming omni client receives (docs/omni.md, "Streaming"): one SSE stream made of
// every round's chunks as the model sends them, under one chat.completion.chunk id, with an
// svc_tool chunk for each step of each tool call between the rounds. An intermediate round's
// [DONE], usage-only chunk and finish_reason are held back (the answer has not finished); the
// final round's go out as the model sent them. Tool-call indexes go on counting across rounds,
// so a client that accumulates tool calls by index keeps them apart.
import type { ServerResponse } from 'node:http';
import type { SvcToolDelta } from '../protocol/mcp.js';

type Chunk = Record<string, unknown> & { choices?: Array<Record<string, unknown>> };

export class OmniStream {
  private opened = false;
  private held: Chunk[] = [];
  private indexBase = 0;
  private roundCalls = 0;
  private created = Math.floor(Date.now() / 1000);
  private model = '';

  constructor(private readonly res: ServerResponse, readonly id: string) {}

  get isOpen(): boolean {
    return this.opened;
  }

  /** The head, once: the first round's 2xx (or its slot-loading comment) opens it. */
  open(): void {
    if (this.opened || this.res.headersSent) return;
    this.opened = true;
    this.res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    this.res.flushHeaders();
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
    this.res.end();
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
    if (!this.res.destroyed) this.res.write(text);
  }
}

function hasDelta(choice: Record<string, unknown>): boolean {
  const delta = choice.delta as Record<string, unknown> | undefined;
  return !!delta && Object.values(delta).some((v) => v !== null && v !== undefined && v !== '');
}
