// One token's text and bytes, for logprobs. A token may carry part of a UTF-8 character (a
// byte token, or a byte-level BPE piece): its text alone is then U+FFFD, and OpenAI's
// `bytes` field is how a client puts the character back together, so the bytes come from
// the vocabulary entry, not from the replacement character.
import type { LlamaModel, Token } from 'node-llama-cpp';

export interface TokenPiece {
  token: string;
  bytes: number[];
}

const BYTE_TOKEN = /^<0x([0-9A-Fa-f]{2})>$/;

/** GPT-2's byte-level alphabet: each byte is written as one printable character (bytes_to_unicode). */
function byteLevelDecoder(): Map<string, number> {
  const printable = [...range(0x21, 0x7e), ...range(0xa1, 0xac), ...range(0xae, 0xff)];
  const decoder = new Map<string, number>();
  for (const b of printable) decoder.set(String.fromCharCode(b), b);
  let next = 0;
  for (let b = 0; b < 256; b++) if (!printable.includes(b)) decoder.set(String.fromCharCode(256 + next++), b);
  return decoder;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

let byteLevel: Map<string, number> | null = null;

/** The bytes a vocabulary entry stands for, when it is a byte token or a byte-level BPE piece; else null. */
export function vocabularyBytes(entry: string | undefined, tokenizerModel: string | undefined): number[] | null {
  if (entry === undefined) return null;
  const byte = BYTE_TOKEN.exec(entry);
  if (byte) return [parseInt(byte[1]!, 16)];
  if (tokenizerModel !== 'gpt2') return null;
  byteLevel ??= byteLevelDecoder();
  const bytes: number[] = [];
  for (const char of entry) {
    const b = byteLevel.get(char);
    if (b === undefined) return null;
    bytes.push(b);
  }
  return bytes;
}

/** `token`'s text as it reads after `before` (a detokenizer needs the previous tokens for spacing), and its bytes. */
export function tokenPiece(model: LlamaModel, token: Token, before: readonly Token[]): TokenPiece {
  const text = model.detokenize([token], false, before.slice(-4));
  // A lone byte of a longer character reads as U+FFFD, or as nothing at all (a continuation byte).
  const whole = text !== '' && !text.includes('\uFFFD');
  if (whole || model.isSpecialToken(token)) return { token: text, bytes: [...Buffer.from(text, 'utf8')] };
  const ggml = model.fileInfo.metadata.tokenizer?.ggml;
  const bytes = vocabularyBytes(ggml?.tokens?.[token], ggml?.model);
  return { token: text, bytes: bytes ?? [...Buffer.from(text, 'utf8')] };
}
