import { describe, expect, it } from 'vitest';
import { encodeVector, normalised, readEmbeddingInputs, readEncoding, readRerankRequest } from './vector-routes.js';

describe('embedding requests', () => {
  it('take a string or a list of strings; refuse empty input', () => {
    expect(readEmbeddingInputs({ input: 'a' })).toEqual(['a']);
    expect(readEmbeddingInputs({ input: ['a', 'b'] })).toEqual(['a', 'b']);
    expect(() => readEmbeddingInputs({ input: [] })).toThrow(/'input' must be/);
    expect(() => readEmbeddingInputs({ input: [1, 2] })).toThrow(/'input' must be/);
    expect(() => readEmbeddingInputs({ input: ['a', ''] })).toThrow(/'input\[1\]' is empty/);
    expect(readEncoding({})).toBe('float');
    expect(readEncoding({ encoding_format: 'base64' })).toBe('base64');
    expect(() => readEncoding({ encoding_format: 'int8' })).toThrow(/encoding_format/);
  });

  it('vectors are L2-normalised, and base64 is the float32 little-endian bytes', () => {
    expect(normalised([3, 4])).toEqual([0.6, 0.8]);
    expect(normalised([0, 0])).toEqual([0, 0]);
    const encoded = encodeVector([0.5, -2], 'base64') as string;
    const bytes = Buffer.from(encoded, 'base64');
    expect([bytes.readFloatLE(0), bytes.readFloatLE(4)]).toEqual([0.5, -2]);
    expect(encodeVector([0.5], 'float')).toEqual([0.5]);
  });
});

describe('rerank requests', () => {
  it('take a query, documents (strings or {text}), top_n and return_documents', () => {
    expect(readRerankRequest({ query: 'q', documents: ['a', { text: 'b' }], top_n: 1, return_documents: true })).toEqual({ query: 'q', documents: ['a', 'b'], topN: 1, returnDocuments: true });
    expect(readRerankRequest({ query: 'q', documents: ['a', 'b'] }).topN).toBe(2);
  });

  it("refuse bad input with llama-server's messages", () => {
    expect(() => readRerankRequest({ documents: ['a'] })).toThrow('"query" must be provided');
    expect(() => readRerankRequest({ query: 1, documents: ['a'] })).toThrow('"query" must be a string');
    expect(() => readRerankRequest({ query: 'q', documents: [] })).toThrow('"documents" must be a non-empty string array');
    expect(() => readRerankRequest({ query: 'q', documents: ['a'], top_n: 0 })).toThrow('"top_n" must be a positive integer');
  });
});
