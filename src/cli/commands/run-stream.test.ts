import { describe, expect, it } from 'vitest';
import { deltaText, eventData } from './run-stream.js';

describe('reading the chat stream', () => {
  it('eventData: the data lines of an event, joined; comments and empty events have none', () => {
    expect(eventData('data: {"a":1}')).toBe('{"a":1}');
    expect(eventData('data:[DONE]')).toBe('[DONE]');
    expect(eventData('data: one\ndata: two')).toBe('one\ntwo');
    expect(eventData(': svc: loading slot chat')).toBeUndefined();
    expect(eventData('')).toBeUndefined();
  });

  it('deltaText: the content of a delta, else ""', () => {
    expect(deltaText({ choices: [{ delta: { content: 'hi' } }] })).toBe('hi');
    expect(deltaText({ choices: [{ delta: { role: 'assistant', content: null } }] })).toBe('');
    expect(deltaText({ choices: [{ delta: {}, finish_reason: 'stop' }] })).toBe('');
    expect(deltaText({ choices: [], usage: { total_tokens: 3 } })).toBe('');
  });
});
