import { describe, expect, it } from 'vitest';
import { refusal } from './refusal.testing.js';
import { readInput } from './input.js';



describe('readInput', () => {
  it('makes a string one user message item with an id', () => {
    const [item, ...rest] = readInput('hello');
    expect(rest).toEqual([]);
    expect(item).toEqual({ id: expect.stringMatching(/^msg_[0-9a-f]{48}$/), type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'hello' }] });
  });

  it('normalises messages: string content to parts, items without a type but with a role, kept ids', () => {
    const items = readInput([
      { role: 'system', content: 'be brief' },
      { type: 'message', role: 'assistant', content: 'earlier answer', id: 'msg_given' },
      { role: 'user', content: [{ type: 'input_text', text: 'look' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA' }, { type: 'input_image', image_url: { url: 'https://x/y.png' }, detail: 'low' }] },
    ]);
    expect(items[0]).toMatchObject({ type: 'message', role: 'system', content: [{ type: 'input_text', text: 'be brief' }] });
    expect(items[0]!.id).toMatch(/^msg_/);
    expect(items[1]).toEqual({ id: 'msg_given', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'earlier answer', annotations: [] }] });
    expect(items[2]!.content).toEqual([
      { type: 'input_text', text: 'look' },
      { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' },
      { type: 'input_image', image_url: 'https://x/y.png', detail: 'low' },
    ]);
  });

  it('reads function calls and their outputs, ids fc_ and fco_', () => {
    const items = readInput([
      { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '12C' },
      { type: 'function_call_output', call_id: 'call_0', output: [{ type: 'input_text', text: 'a' }] },
    ], { issued: new Set(['call_0']) });
    expect(items[0]).toEqual({ id: expect.stringMatching(/^fc_/), type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}', status: 'completed' });
    expect(items[1]).toEqual({ id: expect.stringMatching(/^fco_/), type: 'function_call_output', call_id: 'call_1', output: '12C', status: 'completed' });
    expect(items[2]!.output).toEqual([{ type: 'input_text', text: 'a' }]);
  });

  it('keeps reasoning items, with an rs_ id when they had none', () => {
    const [item] = readInput([{ type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'hmm' }] }]);
    expect(item).toMatchObject({ type: 'reasoning', id: expect.stringMatching(/^rs_/), content: [{ type: 'reasoning_text', text: 'hmm' }] });
  });

  it.each([
    ['not a string or list', 42, 'input'],
    ['an item that is not an object', ['hi'], 'input[0]'],
    ['an item with neither type nor role', [{ content: 'x' }], 'input[0].type'],
    ['an item_reference to nothing stored', [{ type: 'item_reference', id: 'msg_1' }], 'input[0].id'],
    ['an item_reference without an id', [{ type: 'item_reference' }], 'input[0].id'],
    ['an unknown item type', [{ type: 'web_search_call', id: 'ws_1' }], 'input[0].type'],
    ['a message with an unknown role', [{ role: 'tool', content: 'x' }], 'input[0].role'],
    ['content that is neither string nor list', [{ role: 'user', content: 5 }], 'input[0].content'],
    ['a text part without text', [{ role: 'user', content: [{ type: 'input_text' }] }], 'input[0].content[0].text'],
    ['an input_file part', [{ role: 'user', content: [{ type: 'input_file', file_id: 'file_1' }] }], 'input[0].content[0].type'],
    ['an image in a system message', [{ role: 'system', content: [{ type: 'input_image', image_url: 'https://x' }] }], 'input[0].content[0].type'],
    ['an image by file_id', [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }], 'input[0].content[0].file_id'],
    ['an image without a URL', [{ role: 'user', content: [{ type: 'input_image' }] }], 'input[0].content[0].image_url'],
    ['an image with a bad detail', [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x', detail: 'huge' }] }], 'input[0].content[0].detail'],
    ['a function_call without a name', [{ type: 'function_call', call_id: 'c', arguments: '{}' }], 'input[0].name'],
    ['a function_call without a call_id', [{ type: 'function_call', name: 'f', arguments: '{}' }], 'input[0].call_id'],
    ['a function_call with object arguments', [{ type: 'function_call', call_id: 'c', name: 'f', arguments: {} }], 'input[0].arguments'],
    ['a function_call_output with an image', [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }, { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image', image_url: 'https://x' }] }], 'input[1].output[0]'],
    ['a function_call_output with a number', [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }, { type: 'function_call_output', call_id: 'c', output: 3 }], 'input[1].output'],
  ])('refuses %s with the path', (_what, input, path) => {
    expect(refusal(() => readInput(input)).path).toBe(path);
  });

  it('says why a file_id image is refused', () => {
    expect(refusal(() => readInput([{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }])).message).toMatch(/no file store/);
  });

  it('replaces an item_reference by the stored item it names', () => {
    const stored = { id: 'msg_old', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Earlier.', annotations: [], logprobs: [] }] };
    const items = readInput([{ type: 'item_reference', id: 'msg_old' }, { role: 'user', content: 'and now?' }], { find: (id) => (id === 'msg_old' ? stored : undefined) });
    expect(items[0]).toEqual({ id: 'msg_old', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Earlier.', annotations: [] }] });
    expect(refusal(() => readInput([{ type: 'item_reference', id: 'msg_gone' }], { find: () => undefined })).message).toContain('"msg_gone" names no item svc has stored');
  });

  it('drops a reference to an item the previous response already holds', () => {
    const items = readInput([{ type: 'item_reference', id: 'msg_prev' }, { role: 'user', content: 'next' }], { present: new Set(['msg_prev']) });
    expect(items.map((item) => item.role)).toEqual(['user']);
  });

  it('counts a referenced function_call as issuing its call id', () => {
    const call = { id: 'fc_old', type: 'function_call', call_id: 'call_9', name: 'f', arguments: '{}', status: 'completed' };
    const items = readInput([{ type: 'item_reference', id: 'fc_old' }, { type: 'function_call_output', call_id: 'call_9', output: 'ok' }], { find: () => call });
    expect(items.map((item) => item.type)).toEqual(['function_call', 'function_call_output']);
  });

  it('refuses a function_call_output for an unknown call id, naming it', () => {
    const { path, message } = refusal(() => readInput([{ type: 'message', role: 'user', content: 'x' }, { type: 'function_call', call_id: 'call_a', name: 'f', arguments: '{}' }, { type: 'function_call_output', call_id: 'call_b', output: 'x' }], { issued: new Set(['call_c']) }));
    expect(path).toBe('input[2].call_id');
    expect(message).toContain('"call_b"');
  });

  it('refuses an output that comes before the call that issues its id', () => {
    const input = [{ type: 'function_call_output', call_id: 'call_a', output: 'x' }, { type: 'function_call', call_id: 'call_a', name: 'f', arguments: '{}' }];
    expect(refusal(() => readInput(input)).path).toBe('input[0].call_id');
  });
});
