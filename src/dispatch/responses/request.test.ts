import { describe, expect, it } from 'vitest';
import { refusal } from './refusal.testing.js';
import { planChat } from './request.js';
import type { ResponseItem } from './types.js';


describe('planChat', () => {
  it('translates a full request into a chat body', () => {
    const plan = planChat({
      model: 'm',
      stream: true,
      instructions: 'Answer in French.',
      input: 'Weather in Oslo?',
      tools: [{ type: 'function', name: 'weather', parameters: { type: 'object' } }],
      tool_choice: 'required',
      parallel_tool_calls: false,
      text: { format: { type: 'json_object' } },
      max_output_tokens: 64,
      temperature: 0.2,
      top_p: 0.9,
      user: 'u1',
      metadata: { team: 'a' },
      future_field: 'ignored',
    }, []);
    expect(plan.chat).toEqual({
      messages: [{ role: 'system', content: 'Answer in French.' }, { role: 'user', content: 'Weather in Oslo?' }],
      tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
      parallel_tool_calls: false,
      tool_choice: 'required',
      response_format: { type: 'json_object' },
      max_tokens: 64,
      temperature: 0.2,
      top_p: 0.9,
      user: 'u1',
    });
    expect(plan.input).toEqual([{ id: expect.stringMatching(/^msg_/), type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'Weather in Oslo?' }] }]);
    expect(plan.enableThinking).toBeNull();
    expect(plan.echo).toMatchObject({ instructions: 'Answer in French.', max_output_tokens: 64, temperature: 0.2, top_p: 0.9, parallel_tool_calls: false, tool_choice: 'required', metadata: { team: 'a' }, user: 'u1' });
  });

  it('echoes the defaults OpenAI gives for a bare request, and sends the engine nothing it was not asked for', () => {
    const plan = planChat({ input: 'hi' }, []);
    expect(plan.chat).toEqual({ messages: [{ role: 'user', content: 'hi' }] });
    expect(plan.echo).toEqual({
      background: false,
      instructions: null,
      max_output_tokens: null,
      max_tool_calls: null,
      parallel_tool_calls: true,
      previous_response_id: null,
      prompt_cache_key: null,
      reasoning: { effort: null, summary: null },
      safety_identifier: null,
      service_tier: 'default',
      store: true,
      temperature: 1,
      text: { format: { type: 'text' }, verbosity: 'medium' },
      tool_choice: 'auto',
      tools: [],
      top_logprobs: 0,
      top_p: 1,
      truncation: 'disabled',
      user: null,
      metadata: {},
    });
  });

  it('echoes the accepted pass-through fields', () => {
    const { echo } = planChat({ input: 'hi', store: false, previous_response_id: 'resp_1', truncation: 'auto', include: ['reasoning.encrypted_content'], service_tier: 'flex', prompt_cache_key: 'k', safety_identifier: 's', reasoning: { summary: 'auto' } }, [{ id: 'msg_0', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'before' }] }]);
    expect(echo).toMatchObject({ store: false, previous_response_id: 'resp_1', truncation: 'auto', service_tier: 'flex', prompt_cache_key: 'k', safety_identifier: 's', reasoning: { effort: null, summary: 'auto' } });
  });

  it.each([
    ['none', false], ['minimal', false], ['low', true], ['medium', true], ['high', true],
  ])('maps reasoning effort %s to enableThinking %s', (effort, expected) => {
    const plan = planChat({ input: 'hi', reasoning: { effort } }, []);
    expect(plan.enableThinking).toBe(expected);
    expect(plan.echo.reasoning).toEqual({ effort, summary: null });
    expect(plan.chat).not.toHaveProperty('reasoning');
  });

  it('asks for logprobs when include names them, with top_logprobs', () => {
    expect(planChat({ input: 'hi', include: ['message.output_text.logprobs'], top_logprobs: 3 }, []).chat).toMatchObject({ logprobs: true, top_logprobs: 3 });
    expect(planChat({ input: 'hi', include: ['message.output_text.logprobs'] }, []).chat).toMatchObject({ logprobs: true });
    expect(planChat({ input: 'hi' }, []).chat).not.toHaveProperty('logprobs');
  });

  it('puts the previous conversation first, without its instructions, and lets the input answer its calls', () => {
    const history: ResponseItem[] = [
      { id: 'msg_1', type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'Weather in Oslo?' }] },
      { id: 'rs_1', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'call it' }] },
      { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}', status: 'completed' },
    ];
    const plan = planChat({ instructions: 'Be brief.', input: [{ type: 'function_call_output', call_id: 'call_1', output: '12C' }], previous_response_id: 'resp_1' }, history);
    expect(plan.chat.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '12C' },
    ]);
    expect(plan.input).toEqual([{ id: expect.stringMatching(/^fco_/), type: 'function_call_output', call_id: 'call_1', output: '12C', status: 'completed' }]);
  });

  it('resolves item_reference items from the store, and adds nothing for one the previous conversation holds', () => {
    const history: ResponseItem[] = [{ id: 'msg_h', type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'from history' }] }];
    const stored: ResponseItem = { id: 'msg_s', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'from the store', annotations: [] }] };
    const plan = planChat({ input: [{ type: 'item_reference', id: 'msg_h' }, { type: 'item_reference', id: 'msg_s' }, { role: 'user', content: 'next' }] }, history, (id) => (id === 'msg_s' ? stored : undefined));
    expect(plan.chat.messages).toEqual([
      { role: 'user', content: 'from history' },
      { role: 'assistant', content: 'from the store' },
      { role: 'user', content: 'next' },
    ]);
    expect(plan.input.map((item) => item.id)).toEqual(['msg_s', expect.stringMatching(/^msg_/)]);
    expect(refusal(() => planChat({ input: [{ type: 'item_reference', id: 'msg_x' }] }, [])).path).toBe('input[0].id');
  });

  it('takes a request without input when there is a previous conversation', () => {
    const plan = planChat({ previous_response_id: 'resp_1' }, [{ id: 'msg_1', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go on' }] }]);
    expect(plan.input).toEqual([]);
    expect(plan.chat.messages).toEqual([{ role: 'user', content: 'go on' }]);
  });

  it('says svc runs no background responses', () => {
    const { path, message } = refusal(() => planChat({ input: 'hi', background: true }, []));
    expect(path).toBe('background');
    expect(message).toMatch(/svc does not run background responses/);
    expect(planChat({ input: 'hi', background: false }, []).echo.background).toBe(false);
  });

  it.each([
    ['no input', {}, 'input'],
    ['only a system message', { input: [{ role: 'system', content: 'x' }] }, 'input'],
    ['an unknown call id', { input: [{ type: 'function_call_output', call_id: 'call_x', output: '1' }] }, 'input[0].call_id'],
    ['a conversation id', { input: 'hi', conversation: 'conv_1' }, 'conversation'],
    ['a stored prompt', { input: 'hi', prompt: { id: 'pmpt_1' } }, 'prompt'],
    ['instructions that are not text', { input: 'hi', instructions: ['a'] }, 'instructions'],
    ['a temperature above 2', { input: 'hi', temperature: 2.5 }, 'temperature'],
    ['a top_p above 1', { input: 'hi', top_p: 1.5 }, 'top_p'],
    ['a fractional max_output_tokens', { input: 'hi', max_output_tokens: 1.5 }, 'max_output_tokens'],
    ['a zero max_output_tokens', { input: 'hi', max_output_tokens: 0 }, 'max_output_tokens'],
    ['top_logprobs above 20', { input: 'hi', top_logprobs: 21 }, 'top_logprobs'],
    ['a bad truncation', { input: 'hi', truncation: 'middle' }, 'truncation'],
    ['include that is not a list', { input: 'hi', include: 'x' }, 'include'],
    ['an include entry that is not text', { input: 'hi', include: [1] }, 'include[0]'],
    ['a bad reasoning effort', { input: 'hi', reasoning: { effort: 'huge' } }, 'reasoning.effort'],
    ['reasoning that is not an object', { input: 'hi', reasoning: 'high' }, 'reasoning'],
    ['metadata that is not an object', { input: 'hi', metadata: ['a'] }, 'metadata'],
    ['metadata with 17 keys', { input: 'hi', metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
    ['a metadata value that is not a string', { input: 'hi', metadata: { n: 1 } }, 'metadata.n'],
    ['a metadata value over 512 characters', { input: 'hi', metadata: { long: 'x'.repeat(513) } }, 'metadata.long'],
    ['a metadata key over 64 characters', { input: 'hi', metadata: { ['k'.repeat(65)]: 'v' } }, `metadata.${'k'.repeat(64)}`],
    ['stream that is not a boolean', { input: 'hi', stream: 'yes' }, 'stream'],
    ['store that is not a boolean', { input: 'hi', store: 1 }, 'store'],
    ['a tool without a name', { input: 'hi', tools: [{ type: 'function' }] }, 'tools[0].name'],
    ['tool_choice naming an unknown function', { input: 'hi', tools: [{ type: 'function', name: 'f' }], tool_choice: { type: 'function', name: 'g' } }, 'tool_choice.name'],
    ['an invalid schema', { input: 'hi', text: { format: { type: 'json_schema', name: 'x', schema: true } } }, 'text.format.schema'],
  ])('refuses %s with a 400 naming the path', (_what, body, path) => {
    expect(refusal(() => planChat(body, [])).path).toBe(path);
  });
});
