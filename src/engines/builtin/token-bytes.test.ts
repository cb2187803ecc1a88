import { describe, expect, it } from 'vitest';
import { vocabularyBytes } from './token-bytes.js';

describe('vocabularyBytes', () => {
  it('a byte token is its byte, in any tokenizer', () => {
    expect(vocabularyBytes('<0xE2>', 'llama')).toEqual([0xe2]);
    expect(vocabularyBytes('<0x0A>', 'gpt2')).toEqual([0x0a]);
  });

  it("a byte-level BPE piece is decoded through GPT-2's byte alphabet", () => {
    // 'Ġ' is the space byte, 'â' 0xE2, 'Ģ' 0x80 (the first bytes of "…" and other 3-byte characters).
    expect(vocabularyBytes('Ġhi', 'gpt2')).toEqual([0x20, 0x68, 0x69]);
    expect(vocabularyBytes('âĢ', 'gpt2')).toEqual([0xe2, 0x80]);
  });

  it('other entries have no known bytes: the caller uses the text', () => {
    expect(vocabularyBytes('▁word', 'llama')).toBeNull();
    expect(vocabularyBytes(undefined, 'gpt2')).toBeNull();
    expect(vocabularyBytes('日本', 'gpt2')).toBeNull();
  });
});
