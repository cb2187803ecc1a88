// NUL where nothing downstream can hold it is refused by the schema, naming the field, for
// requests that do not come over HTTP (an MCP tool call from the omni loop) and files the
// host wrote (src/config/no-nul-fields.test.ts). The HTTP parser refuses it first for /api
// and /mcp bodies (server/json-body.ts).
import { describe, expect, it } from 'vitest';
import { RequestError } from './errors.js';
import { NUL_REFUSED } from './input-bounds.js';
import { MemoryAddRequestSchema, MemorySearchRequestSchema } from './memory.js';
import { CreateSlotRequestSchema } from './slot-requests.js';
import { parseRequest } from './validate.js';

function problemPaths(schema: Parameters<typeof parseRequest>[0], value: unknown): string[] {
  try {
    parseRequest(schema, value);
  } catch (error) {
    expect(error).toBeInstanceOf(RequestError);
    const problems = (error as RequestError).details.problems as Array<{ path: string; message: string }>;
    return problems.filter((p) => p.message.startsWith(NUL_REFUSED)).map((p) => p.path);
  }
  return [];
}

describe('fields that reach Postgres refuse NUL', () => {
  it('a memory item: its text, tags, dataset, document id and metadata', () => {
    expect(problemPaths(MemoryAddRequestSchema, { text: 'a\u0000b' })).toEqual(['text']);
    expect(problemPaths(MemoryAddRequestSchema, { text: 'ok', tags: ['t\u0000'], dataset: 'd\u0000', document_id: '\u0000' })).toEqual(['dataset', 'tags[0]', 'document_id']);
    expect(problemPaths(MemoryAddRequestSchema, { text: 'ok', metadata: { nested: { 'k\u0000': 1 } } })).toEqual(['metadata']);
    expect(problemPaths(MemorySearchRequestSchema, { query: 'q\u0000' })).toEqual(['query']);
    expect(problemPaths(MemoryAddRequestSchema, { text: 'plain text', metadata: { fine: ['yes'] } })).toEqual([]);
  });
});

describe('fields that reach an engine argv or environment refuse NUL', () => {
  it('extra_args on a slot request', () => {
    expect(problemPaths(CreateSlotRequestSchema, { name: 'chat', extra_args: '--threads 4\u0000' })).toEqual(['extra_args']);
  });

});
