import { describe, expect, it } from 'vitest';
import { readChatParams } from './chat-params.js';

describe('readChatParams', () => {
  it('reads numbers and leaves blanks out', () => {
    expect(readChatParams({ system: '', temperature: '0.7', maxTokens: '64' })).toEqual({ params: { temperature: 0.7, max_tokens: 64 }, problems: {} });
    expect(readChatParams({ system: '', temperature: ' ', maxTokens: '' })).toEqual({ params: {}, problems: {} });
  });

  it('names the field of each problem', () => {
    expect(readChatParams({ system: '', temperature: '3', maxTokens: '1.5' }).problems).toEqual({ temperature: 'at most 2', max_tokens: 'a whole number' });
    expect(readChatParams({ system: '', temperature: 'warm', maxTokens: '0' }).problems).toEqual({ temperature: 'a number', max_tokens: 'at least 1' });
  });
});
