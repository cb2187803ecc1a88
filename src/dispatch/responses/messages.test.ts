import { describe, expect, it } from 'vitest';
import { readInput } from './input.js';
import { chatMessages } from './messages.js';

const messagesOf = (input: unknown[], issued: string[] = []) => chatMessages(readInput(input, { issued: new Set(issued) }));

describe('chatMessages', () => {
  it('turns a lone text part into a string, developer into system, images into image_url parts', () => {
    expect(messagesOf([
      { role: 'developer', content: 'rules' },
      { role: 'user', content: [{ type: 'input_text', text: 'what is this?' }, { type: 'input_image', image_url: 'https://x/cat.png', detail: 'high' }] },
      { role: 'user', content: [{ type: 'input_text', text: 'only text' }] },
    ])).toEqual([
      { role: 'system', content: 'rules' },
      { role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: 'https://x/cat.png', detail: 'high' } }] },
      { role: 'user', content: 'only text' },
    ]);
  });

  it('joins an assistant message into one string', () => {
    expect(messagesOf([{ role: 'assistant', content: [{ type: 'output_text', text: 'a' }, { type: 'output_text', text: 'b' }] }])).toEqual([{ role: 'assistant', content: 'ab' }]);
  });

  it('merges consecutive function calls, and calls after the assistant text, into one assistant message', () => {
    expect(messagesOf([
      { role: 'user', content: 'weather in Oslo and Rome?' },
      { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'two calls' }] },
      { role: 'assistant', content: 'Checking.' },
      { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call', call_id: 'call_2', name: 'weather', arguments: '{"city":"Rome"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '12C' },
      { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: '2' }, { type: 'input_text', text: '5C' }] },
      { type: 'function_call', call_id: 'call_3', name: 'clock', arguments: '{}' },
    ])).toEqual([
      { role: 'user', content: 'weather in Oslo and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
          { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '12C' },
      { role: 'tool', tool_call_id: 'call_2', content: '25C' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'clock', arguments: '{}' } }] },
    ]);
  });

  it('drops reasoning items from the prompt', () => {
    expect(messagesOf([{ type: 'reasoning', summary: [] }, { role: 'user', content: 'hi' }])).toEqual([{ role: 'user', content: 'hi' }]);
  });
});
