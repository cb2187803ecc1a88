// The input schemas of svc-memory's tools (docs/mcp.md "svc-memory"): the REST bodies' own zod
// schemas (protocol/memory.ts), so a tool takes exactly what its /api/memory route takes, plus
// the few tool-only arguments. Their JSON Schema is what a model sees; the zod schema checks.
import { z } from 'zod';
import {
  MemoryAddRequestSchema, MemoryRecallRequestSchema, MemorySearchRequestSchema,
} from '../../protocol/memory.js';

const ids = () => z.array(z.string().min(1).max(128)).min(1).max(1000);
const tagList = () => z.array(z.string().min(1).max(256)).max(64);

export const AddArgs = MemoryAddRequestSchema.extend({ private: z.boolean().optional() });
export const SearchArgs = MemorySearchRequestSchema;
export const RecallArgs = MemoryRecallRequestSchema;
export const ReflectArgs = MemoryRecallRequestSchema;
/** By id only, unlike POST /api/memory/delete (which also deletes a whole dataset): an agent deletes what it names, and its approvals are deduplicated on the ids. */
export const DeleteArgs = z.strictObject({
  ids: z.array(z.string().min(1).max(128)).min(1).max(1000),
  dataset: z.string().min(1).max(256).optional(),
});
export const ListArgs = z.strictObject({
  dataset: z.string().min(1).max(256).optional(),
  bank: z.string().min(1).max(128).optional(),
  cursor: z.string().min(1).max(200).optional(),
  limit: z.int().min(1).max(500).default(50),
});
export const HistoryArgs = z.strictObject({ id: z.string().min(1).max(128) });
export const CurateArgs = z.strictObject({
  ids: ids(),
  add_tags: tagList().default([]),
  remove_tags: tagList().default([]),
  delete: z.boolean().default(false),
});

const DESCRIPTIONS: Record<string, string> = {
  text: 'the memory, verbatim', query: 'what to look for, in words', dataset: 'a dataset name to file under or filter by',
  tags: 'tags to file under or filter by', metadata: 'any JSON object kept with the item', document_id: 'the document the text came from',
  private: 'keep it to this agent (default: the X-Svc-Private header)', limit: 'how many items at most', ids: 'item ids',
  id: 'an item id', bank: 'one bank to list (default: every bank this agent reads)', cursor: 'next_cursor of the previous page',
  max_tokens: 'the token budget of the answer', types: 'item types to include', tags_match: 'any or all of the tags',
  before: 'only items older than this ISO time', after: 'only items newer than this ISO time',
  add_tags: 'tags to add', remove_tags: 'tags to remove', delete: 'delete the items (as memory_delete, with its approval)',
};

/** The JSON Schema a model sees: the input side (defaults optional), described, without the long date regexes. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> };
  delete json.$schema;
  for (const [key, property] of Object.entries(json.properties ?? {})) {
    if (property.format === 'date-time') delete property.pattern;
    if (DESCRIPTIONS[key]) property.description = DESCRIPTIONS[key];
  }
  return json;
}
