import { describe, expect, it } from 'vitest';
import { EMPTY_PROGRESS, endNote, foldChunk } from './chat-stream.js';

const chunk = (delta: object, finish: string | null = null, extra: object = {}) => JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }], ...extra });

describe('foldChunk', () => {
  it('adds content and reasoning deltas, keeps the finish reason, usage and [DONE]', () => {
    let p = foldChunk(EMPTY_PROGRESS, chunk({ role: 'assistant' }));
    p = foldChunk(p, chunk({ reasoning_content: 'hmm' }));
    p = foldChunk(p, chunk({ content: 'Hel' }));
    p = foldChunk(p, chunk({ content: 'lo' }));
    p = foldChunk(p, chunk({}, 'length'));
    p = foldChunk(p, JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }));
    expect(p).toMatchObject({ content: 'Hello', reasoning: 'hmm', finishReason: 'length', usage: { total_tokens: 5 }, done: false, error: null });
    p = foldChunk(p, '[DONE]');
    expect(p.done).toBe(true);
    expect(endNote(p, false)).toBe('cut off at max tokens');
  });

  it('turns the gateway’s error event into an ApiError with its code and message, keeping the text so far', () => {
    const before = foldChunk(EMPTY_PROGRESS, chunk({ content: 'par' }));
    const p = foldChunk(before, JSON.stringify({ error: { code: 'dispatch.upstream_unreachable', message: 'the engine went away', details: { slot: 'chat' } } }));
    expect(p.content).toBe('par');
    expect(p.error).toMatchObject({ code: 'dispatch.upstream_unreachable', message: 'the engine went away', details: { slot: 'chat' } });
    expect(endNote(p, false)).toBe('failed');
  });

  it('reports a chunk that is not JSON', () => {
    expect(foldChunk(EMPTY_PROGRESS, '{nope').error?.code).toBe('stream.bad_chunk');
  });
});

describe('endNote', () => {
  it('says stopped first, then how the model ended', () => {
    expect(endNote({ ...EMPTY_PROGRESS, finishReason: 'stop' }, true)).toBe('stopped');
    expect(endNote({ ...EMPTY_PROGRESS, finishReason: 'stop', done: true }, false)).toBe('finished (stop)');
    expect(endNote({ ...EMPTY_PROGRESS, done: true }, false)).toBe('finished');
    expect(endNote(EMPTY_PROGRESS, false)).toBe('ended without a finish reason');
  });
});
