import { describe, expect, it } from 'vitest';
import { RequestError } from '../protocol/errors.js';
import { MAX_JSON_DEPTH } from '../protocol/input-bounds.js';
import { isV1Path, parseJsonBody } from './json-body.js';

const nested = (depth: number, key: string | null) => {
  const open = key === null ? '[' : `{"${key}":`;
  return `${open.repeat(depth)}1${(key === null ? ']' : '}').repeat(depth)}`;
};

/** The RequestError a parse throws (and fails when it throws something else, a RangeError above all). */
function refusal(text: string, options?: Parameters<typeof parseJsonBody>[1]): RequestError {
  try {
    parseJsonBody(text, options);
  } catch (error) {
    expect(error).toBeInstanceOf(RequestError);
    return error as RequestError;
  }
  throw new Error('the body was accepted');
}

describe('parseJsonBody: nesting', () => {
  it('takes a body nested exactly as deep as the bound', () => {
    expect(() => parseJsonBody(nested(MAX_JSON_DEPTH, 'a'))).not.toThrow();
    expect(() => parseJsonBody(nested(MAX_JSON_DEPTH, null))).not.toThrow();
  });

  it('refuses one level more as request.too_deep, naming the limit and where it was crossed', () => {
    const error = refusal(`{"messages":[${nested(MAX_JSON_DEPTH - 1, 'a')}]}`);
    expect(error.code).toBe('request.too_deep');
    expect(error.details.max_depth).toBe(MAX_JSON_DEPTH);
    const { path } = (error.details.problems as Array<{ path: string }>)[0]!;
    expect(path.startsWith('messages[0].a.a')).toBe(true);
    expect(path.split('.')).toHaveLength(MAX_JSON_DEPTH - 1); // messages[0], then a level under each of the 126 objects above the one too deep
  });

  // 100,000 levels overflowed the stack of the key check (with __proto__ or constructor in
  // the text) and of what walks a body later (without): a 500 on every route with a JSON body.
  it.each([['a'], ['__proto__'], ['constructor'], [null]])('refuses 100,000 levels of %s as request.too_deep, not a stack overflow', (key) => {
    expect(refusal(nested(100_000, key)).code).toBe('request.too_deep');
  });
});

describe('parseJsonBody: refused keys', () => {
  it('names a __proto__ key, and a constructor carrying a prototype, where they are', () => {
    expect(refusal('{"a":[{"__proto__":{}}]}').details.problems).toEqual([{ path: 'a[0].__proto__', message: 'this key is refused: it can change object prototypes' }]);
    expect((refusal('{"constructor":{"prototype":{}}}').details.problems as Array<{ path: string }>)[0]!.path).toBe('constructor.prototype');
    expect(parseJsonBody('{"constructor":"a word","text":"__proto__"}')).toEqual({ constructor: 'a word', text: '__proto__' });
  });
});

describe('parseJsonBody: NUL', () => {
  it('refuses a NUL in a string or a key when told to, naming the field', () => {
    const error = refusal('{"server":{"extra_args":"--a\\u0000b"}}', { nul: true });
    expect(error.code).toBe('request.invalid');
    expect((error.details.problems as Array<{ path: string }>)[0]!.path).toBe('server.extra_args');
    expect((refusal('{"tags":["ok","k\\u0000"]}', { nul: true }).details.problems as Array<{ path: string }>)[0]!.path).toBe('tags[1]');
    expect((refusal('{"metadata":{"k\\u0000":1}}', { nul: true }).details.problems as Array<{ path: string }>)[0]!.path).toBe('metadata.k\u0000');
  });

  it('takes a NUL where it is not told to (/v1 bodies go to an engine as they came), and an escaped backslash anywhere', () => {
    expect(parseJsonBody('{"content":"a\\u0000b"}')).toEqual({ content: 'a\u0000b' });
    expect(parseJsonBody('{"text":"a\\\\u0000b"}', { nul: true })).toEqual({ text: 'a\\u0000b' });
    expect(isV1Path('/v1/chat/completions')).toBe(true);
    expect(isV1Path('/api/v1/x')).toBe(false);
  });
});
