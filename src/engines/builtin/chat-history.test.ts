import { ChatMLChatWrapper } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { toChatHistory, withOpenResponse } from './chat-history.js';
import type { ChatMessage } from './chat-messages.js';

const call = (id: string, name: string, args: string) => ({ id, name, arguments: args });

describe('toChatHistory', () => {
  it('plain turns map one to one; an assistant message is a model response', () => {
    expect(toChatHistory([{ role: 'system', content: 's' }, { role: 'user', content: 'u' }, { role: 'assistant', content: 'a' }])).toEqual([
      { type: 'system', text: 's' }, { type: 'user', text: 'u' }, { type: 'model', response: ['a'] },
    ]);
  });

  it('tool calls, their results and the text after them are one model response, in order', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: '', toolCalls: [call('c1', 'get_weather', '{"city":"Oslo"}'), call('c2', 'now', '')] },
      { role: 'tool', content: '{"temp":3}', toolCallId: 'c1' },
      { role: 'tool', content: 'noon', toolCallId: 'c2' },
      { role: 'assistant', content: 'Cold, at noon.' },
      { role: 'user', content: 'thanks' },
    ];
    expect(toChatHistory(messages)).toEqual([
      { type: 'user', text: 'weather?' },
      {
        type: 'model', response: [
          { type: 'functionCall', name: 'get_weather', params: { city: 'Oslo' }, result: { temp: 3 } },
          { type: 'functionCall', name: 'now', params: undefined, result: 'noon' },
          'Cold, at noon.',
        ],
      },
      { type: 'user', text: 'thanks' },
    ]);
  });

  it('the wrapper renders calls and results in the model\'s own syntax', () => {
    const history = withOpenResponse(toChatHistory([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Let me look.', toolCalls: [call('c1', 'lookup', '{"q":"x"}')] },
      { role: 'tool', content: '[1,2]', toolCallId: 'c1' },
    ]));
    const text = new ChatMLChatWrapper().generateContextState({ chatHistory: history }).contextText.toString();
    expect(text).toContain('Let me look.||call: lookup({"q": "x"})\n||result: [1, 2]\n');
    // The answer continues the same assistant turn, after the result.
    expect(text.endsWith('||result: [1, 2]\n')).toBe(true);
  });

  it('withOpenResponse opens a model response, or continues the last one, with an optional prefix', () => {
    expect(withOpenResponse([{ type: 'user', text: 'u' }], ['so'])).toEqual([{ type: 'user', text: 'u' }, { type: 'model', response: ['so'] }]);
    expect(withOpenResponse([{ type: 'model', response: ['a'] }], ['b'])).toEqual([{ type: 'model', response: ['a', 'b'] }]);
  });
});
