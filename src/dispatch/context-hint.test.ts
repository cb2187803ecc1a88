import { describe, expect, it } from 'vitest';
import { errorAnswerFrom, type ErrorBody } from './error-answer.js';
import { suggestedContext } from './context-hint.js';

const body = (status: number, json: unknown): ErrorBody => ({ status, contentType: 'application/json', retryAfter: undefined, bytes: Buffer.from(JSON.stringify(json)), truncated: false });

describe('a prompt longer than the slot\'s context names the fix', () => {
  it('the built-in engine\'s request.context_exceeded: the command that raises it, and the restart', () => {
    const builtin = { error: { code: 'request.context_exceeded', message: 'the request exceeds the available context size (8071 prompt tokens, 2048 in the context), try increasing it', details: { type: 'exceed_context_size_error', n_prompt_tokens: 8071, n_ctx: 2048 } } };
    const { status, envelope } = errorAnswerFrom(body(400, builtin), { slot: 'chat' });
    expect(status).toBe(400);
    expect(envelope.error).toEqual({
      code: 'request.context_exceeded',
      message: "the request exceeds the available context size (8071 prompt tokens, 2048 in the context); raise slot chat's context: `svc slot edit chat --ctx-size 16384`, then `svc slot restart chat` (or Context size in the dashboard's slot form)",
      details: { type: 'exceed_context_size_error', n_prompt_tokens: 8071, n_ctx: 2048, slot: 'chat', suggested_ctx_size: 16384 },
    });
  });

  it("llama-server's exceed_context_size_error is request.context_exceeded too, not upstream.bad_request", () => {
    const llama = { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: 5000, n_ctx: 4096 } };
    const { envelope } = errorAnswerFrom(body(400, llama), { slot: 'big' });
    expect(envelope.error.code).toBe('request.context_exceeded');
    expect(envelope.error.message).toBe("the request exceeds the available context size (5000 prompt tokens, 4096 in the context); raise slot big's context: `svc slot edit big --ctx-size 8192`, then `svc slot restart big` (or Context size in the dashboard's slot form)");
    expect(envelope.error.details).toMatchObject({ slot: 'big', status: 400, upstream: llama, n_prompt_tokens: 5000, n_ctx: 4096, suggested_ctx_size: 8192 });
  });

  it('other errors and remote upstreams are left as they are', () => {
    const other = { error: { code: 'request.invalid', message: 'no', details: {} } };
    expect(errorAnswerFrom(body(400, other), { slot: 'chat' }).envelope).toEqual(other);
    const remote = { error: { code: 'request.context_exceeded', message: 'too long', details: {} } };
    expect(errorAnswerFrom(body(400, remote), { upstream_name: 'far' }).envelope).toEqual(remote);
  });

  it('suggests the next power of two that holds the prompt and a reply', () => {
    expect(suggestedContext(100)).toBe(2048);
    expect(suggestedContext(3000)).toBe(4096);
    expect(suggestedContext(8071)).toBe(16384);
    expect(suggestedContext(31_000)).toBe(32768);
  });
});
