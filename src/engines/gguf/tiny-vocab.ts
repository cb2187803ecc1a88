// The tiny model's SentencePiece-style vocabulary, laid out the way llama.cpp's SPM
// tokenizer expects (src/llama-vocab.cpp): <unk>=0, <s>=1, </s>=2, the 256 byte tokens
// `<0x00>`..`<0xFF>` for byte fallback, and '▁' (U+2581) standing for a leading space.
// llama.cpp's SPM tokenizer only merges two adjacent symbols when their concatenation
// is itself a token, so every prefix of a word ('▁t', '▁th', '▁the') is in the vocab:
// that lets prompts tokenize into whole words rather than single characters.

/** llama_token_type values (gguf-py constants.py, TokenType). */
export const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 } as const;

/** How the output layer should treat a token; see tiny-model.ts for the biases. */
export type TokenKind = 'control' | 'end' | 'byte' | 'char' | 'piece' | 'word' | 'comma' | 'stop';

export interface TinyVocab {
  readonly tokens: readonly string[];
  readonly scores: readonly number[];
  readonly types: readonly number[];
  readonly kinds: readonly TokenKind[];
  readonly unkId: number;
  readonly bosId: number;
  readonly eosId: number;
  readonly imStartId: number;
  readonly imEndId: number;
}

const SPACE = '\u2581';

const WORDS = (
  'the a an and or but of to in on at by for with from up out as is are was be it he she we they you ' +
  'I me my your his her this that not no yes all some one two new old good big small long little time ' +
  'day year way man world life hand part place work home water room book eye word side kind head house ' +
  'friend game line end car city name team idea body back face door art war air go get make know think ' +
  'take see come want look use find give tell ask feel try call run walk sing read write eat sleep play ' +
  'open keep show hear move live sit stand pay meet cat dog sun moon tree bird fish red blue green'
).split(' ');

/** Punctuation the model emits between words, so its nonsense reads like sentences. */
const PUNCT: Readonly<Record<string, TokenKind>> = { ',': 'comma', '.': 'stop', '!': 'stop', '?': 'stop' };

export function buildTinyVocab(): TinyVocab {
  const entries: { text: string; type: number; kind: TokenKind }[] = [
    { text: '<unk>', type: TOKEN_TYPE.unknown, kind: 'control' },
    { text: '<s>', type: TOKEN_TYPE.control, kind: 'control' },
    { text: '</s>', type: TOKEN_TYPE.control, kind: 'control' },
    { text: '<|im_start|>', type: TOKEN_TYPE.control, kind: 'control' },
    { text: '<|im_end|>', type: TOKEN_TYPE.control, kind: 'end' },
  ];
  for (let byte = 0; byte < 256; byte++) {
    const hex = byte.toString(16).toUpperCase().padStart(2, '0');
    entries.push({ text: `<0x${hex}>`, type: TOKEN_TYPE.byte, kind: 'byte' });
  }
  const seen = new Set(entries.map((e) => e.text));
  const add = (text: string, kind: TokenKind): void => {
    if (seen.has(text)) return;
    seen.add(text);
    entries.push({ text, type: TOKEN_TYPE.normal, kind });
  };
  add(SPACE, 'char');
  for (let code = 0x21; code <= 0x7e; code++) {
    const char = String.fromCharCode(code);
    add(char, PUNCT[char] ?? 'char');
  }
  const words = new Set(WORDS.map((w) => SPACE + w));
  for (const word of words) {
    for (let end = 2; end < word.length; end++) {
      const prefix = word.slice(0, end);
      if (!words.has(prefix)) add(prefix, 'piece');
    }
    add(word, 'word');
  }
  return finish(entries);
}

function finish(entries: readonly { text: string; type: number; kind: TokenKind }[]): TinyVocab {
  const tokens = entries.map((e) => e.text);
  const id = (text: string): number => tokens.indexOf(text);
  return {
    tokens,
    // SPM scores are log-probabilities; merges with the higher score win. Longer pieces
    // score higher so whole words beat fragments; specials and bytes score 0 as in Llama 2.
    scores: entries.map((e) => (e.type === TOKEN_TYPE.normal ? -100 + [...e.text].length : 0)),
    types: entries.map((e) => e.type),
    kinds: entries.map((e) => e.kind),
    unkId: id('<unk>'),
    bosId: id('<s>'),
    eosId: id('<|im_end|>'),
    imStartId: id('<|im_start|>'),
    imEndId: id('<|im_end|>'),
  };
}
