import { describe, expect, it } from 'vitest';
import { describeRun, RequestLog } from './request-log.js';

const result = (completionTokens: number, finishReason: 'stop' | 'length' = 'stop') => ({ promptTokens: 20, completionTokens, finishReason });

describe('describeRun', () => {
  it('says tokens, time, rate, first token and finish; the rate leaves out the wait in the queue', () => {
    const line = describeRun('chat', [result(50)], false, { arrived: 0, started: 100, firstToken: 105, ended: 200 });
    expect(line).toBe('chat: 20 prompt tokens, 50 generated in 100.0 ms (500.0 tokens/s), first token after 5.0 ms, after waiting 100.0 ms for a free sequence, finish stop');
  });

  it('counts every choice and lists each kind of finish once', () => {
    const line = describeRun('completion', [result(3, 'length'), result(2, 'stop'), result(4, 'length')], false, { arrived: 0, started: 0, firstToken: null, ended: 10 });
    expect(line).toBe('completion: 3 choices, 20 prompt tokens, 9 generated in 10.0 ms (900.0 tokens/s), finish length/stop');
  });

  it('says when the client left, and how far generation got', () => {
    expect(describeRun('chat', [result(7)], true, { arrived: 0, started: 0, firstToken: 1, ended: 12 })).toBe('chat: cancelled by the client after 7 generated tokens (12.0 ms)');
  });
});

describe('RequestLog', () => {
  it('times a run with its clock', () => {
    const lines: string[] = [];
    let now = 0;
    const log = new RequestLog((l) => lines.push(l), () => now);
    const run = log.start('chat');
    now = 30;
    run.started();
    now = 32;
    run.token();
    now = 40;
    run.token();
    now = 50;
    run.end([{ text: 'x', reasoning: '', promptTokens: 5, completionTokens: 10, finishReason: 'length', aborted: false }], false);
    expect(lines).toEqual(['chat: 5 prompt tokens, 10 generated in 20.0 ms (500.0 tokens/s), first token after 2.0 ms, after waiting 30.0 ms for a free sequence, finish length']);
  });
});
