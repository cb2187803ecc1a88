import { describe, expect, it } from 'vitest';
import { answerError } from './answer-error.js';

describe('answerError', () => {
  it('reads the envelope of a failed answer', () => {
    const body = JSON.stringify({ error: { code: 'request.context_exceeded', message: 'the request exceeds the available context size (900 prompt tokens, 512 in the context)', details: {} } });
    expect(answerError(400, body)).toEqual({ code: 'request.context_exceeded', message: 'the request exceeds the available context size (900 prompt tokens, 512 in the context)' });
    expect(answerError(502, 'Bad Gateway\n')).toEqual({ code: 'upstream.error', message: 'Bad Gateway' });
  });

  it("finds a stream's error event after it began, svc's and a Responses response.failed", () => {
    const chat = 'data: {"choices":[{"delta":{"content":"hi"}}]}\n\n\n\ndata: {"error":{"code":"slot.crashed","message":"the engine exited","details":{}}}\n\n';
    expect(answerError(200, chat)).toEqual({ code: 'slot.crashed', message: 'the engine exited' });
    const responses = 'event: response.failed\ndata: {"type":"response.failed","response":{"status":"failed","error":{"code":"upstream.error","message":"broke off"}}}\n\n';
    expect(answerError(200, responses)).toEqual({ code: 'upstream.error', message: 'broke off' });
  });

  it('is null for an answer that succeeded', () => {
    expect(answerError(200, '{"choices":[{"message":{"content":"ok"}}]}')).toBeNull();
    expect(answerError(200, 'data: {"type":"response.completed","response":{"status":"completed","error":null}}\n\ndata: [DONE]\n\n')).toBeNull();
  });
});
