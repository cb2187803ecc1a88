import { describe, expect, it } from 'vitest';
import { withModel } from './body-rewrite.js';

const splice = (text: string, model: string) => withModel(Buffer.from(text), model)?.toString('utf8') ?? null;

describe('withModel', () => {
  it('replaces the top-level model value and keeps every other byte', () => {
    const text = '{"messages":[{"role":"user","content":"hi"}],\n  "model" : "bench" ,"stream":true}';
    expect(splice(text, 'qwen/Qwen3 "0.6B"')).toBe('{"messages":[{"role":"user","content":"hi"}],\n  "model" : "qwen/Qwen3 \\"0.6B\\"" ,"stream":true}');
    expect(JSON.parse(splice('{"model":"a\\"b\\\\","x":1}', 'c')!)).toEqual({ model: 'c', x: 1 });
  });

  it('ignores "model" inside strings, where every quote is escaped', () => {
    const text = '{"messages":[{"role":"user","content":"say \\"model\\": \\"x\\""}],"model":"bench"}';
    expect(JSON.parse(splice(text, 'm')!)).toEqual({ messages: [{ role: 'user', content: 'say "model": "x"' }], model: 'm' });
  });

  it('declines whenever it cannot be sure: nested or duplicate keys, escaped keys, odd values', () => {
    expect(splice('{"model":"a","tools":[{"parameters":{"model":"b"}}]}', 'm')).toBeNull();
    expect(splice('{"model":"a","model":"b"}', 'm')).toBeNull();
    // The top-level key is escaped; the only plain "model" is nested: splicing would change the wrong one.
    expect(splice('{"mod\\u0065l":"a","meta":{"model":"b"}}', 'm')).toBeNull();
    expect(splice('{"meta":{"model":"b"}}', 'm')).toBeNull();
    expect(splice('{"model":null}', 'm')).toBeNull();
    expect(splice('{"x":"\\"model\\":\\"a\\""}', 'm')).toBeNull();
  });

  it('agrees with re-serialising on what the upstream reads', () => {
    const bodies = [
      { model: 'bench', messages: [{ role: 'user', content: 'ünïcødé "quotes" \\ back' }], stream: false },
      { stream: true, max_tokens: 4, model: 'svc/chat', response_format: { type: 'json_object' } },
    ];
    for (const body of bodies) {
      const spliced = splice(JSON.stringify(body, null, 2), 'the-model');
      expect(JSON.parse(spliced!)).toEqual({ ...body, model: 'the-model' });
    }
  });
});
