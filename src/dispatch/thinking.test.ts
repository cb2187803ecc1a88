import { describe, expect, it } from 'vitest';
import { withThinking } from './thinking.js';

const base = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

describe('withThinking', () => {
  it('adds the slot default as chat_template_kwargs.enable_thinking', () => {
    expect(withThinking(base, false)).toEqual({ ...base, chat_template_kwargs: { enable_thinking: false } });
    expect(withThinking(base, true)).toEqual({ ...base, chat_template_kwargs: { enable_thinking: true } });
  });

  it('null adds nothing and returns the same object', () => {
    expect(withThinking(base, null)).toBe(base);
  });

  it("keeps the request's own chat_template_kwargs.enable_thinking, and its other kwargs", () => {
    const own = { ...base, chat_template_kwargs: { enable_thinking: true, custom: 1 } };
    expect(withThinking(own, false)).toBe(own);
    const other = { ...base, chat_template_kwargs: { custom: 1 } };
    expect(withThinking(other, false)).toEqual({ ...base, chat_template_kwargs: { custom: 1, enable_thinking: false } });
    expect(other.chat_template_kwargs).toEqual({ custom: 1 }); // the request's object is not changed
  });

  it('a top-level enable_thinking is the request\'s choice, copied where llama-server reads it', () => {
    expect(withThinking({ ...base, enable_thinking: true }, false)).toEqual({ ...base, enable_thinking: true, chat_template_kwargs: { enable_thinking: true } });
    expect(withThinking({ ...base, enable_thinking: false }, null)).toEqual({ ...base, enable_thinking: false, chat_template_kwargs: { enable_thinking: false } });
    // Not a boolean: not a choice; the slot default applies.
    expect(withThinking({ ...base, enable_thinking: 'yes' }, false)).toEqual({ ...base, enable_thinking: 'yes', chat_template_kwargs: { enable_thinking: false } });
  });

  it('leaves a chat_template_kwargs that is not an object to the engine', () => {
    const odd = { ...base, chat_template_kwargs: 'x' };
    expect(withThinking(odd, false)).toBe(odd);
  });
});
