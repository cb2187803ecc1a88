import { describe, expect, it } from 'vitest';
import { readChatParams } from './chat-params.js';

const input = (temperature: string, maxTokens: string, extra = '') => ({ system: '', temperature, maxTokens, extra });

describe('readChatParams', () => {
  it('reads numbers and leaves blanks out', () => {
    expect(readChatParams(input('0.7', '64'))).toEqual({ params: { temperature: 0.7, max_tokens: 64 }, problems: {} });
    expect(readChatParams(input(' ', '', ' '))).toEqual({ params: {}, problems: {} });
  });

  it('names the field of each problem', () => {
    expect(readChatParams(input('3', '1.5')).problems).toEqual({ temperature: 'at most 2', max_tokens: 'a whole number' });
    expect(readChatParams(input('warm', '0', '[1]')).problems).toEqual({ temperature: 'a number', max_tokens: 'at least 1', extra: expect.stringMatching(/^a JSON object/) });
  });

  it('merges extra fields under the typed ones', () => {
    expect(readChatParams(input('0.5', '', '{"ignore_eos": true, "temperature": 1.5}')).params).toEqual({ ignore_eos: true, temperature: 0.5 });
    expect(readChatParams(input('', '', '{"seed": ')).problems).toEqual({ extra: expect.stringMatching(/^a JSON object/) });
  });
});
