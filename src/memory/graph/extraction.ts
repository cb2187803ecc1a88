// One extraction: the memory's text sent to the extraction slot's chat model, in process
// through the dispatcher (as model-calls.ts does the embeddings), with a JSON schema as its
// response_format, so an engine that enforces it (the built-in engine, llama-server) can
// only answer entities with types and relations between them. The answer is normalised
// (trimmed, de-duplicated, relations to entities it did not list get one of type "other").
import type { Dispatcher } from '../../dispatch/dispatcher.js';
import { readBody } from '../../dispatch/result.js';

export const ENTITY_TYPES = ['person', 'organization', 'place', 'event', 'object', 'concept', 'time', 'other'] as const;
const MAX_ENTITIES = 8;
const MAX_RELATIONS = 8;
const NAME_MAX = 48;
const RELATION_MAX = 32;
/** Room for the longest answer the schema admits, even at one token per character. */
const MAX_TOKENS = 3072;

/** The response_format schema: small bounds, so even a weak model's answer ends as whole JSON within MAX_TOKENS. */
export const EXTRACTION_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['entities', 'relations'],
  properties: {
    entities: {
      type: 'array', maxItems: MAX_ENTITIES,
      items: {
        type: 'object', additionalProperties: false, required: ['name', 'type'],
        properties: { name: { type: 'string', minLength: 1, maxLength: NAME_MAX }, type: { type: 'string', enum: [...ENTITY_TYPES] } },
      },
    },
    relations: {
      type: 'array', maxItems: MAX_RELATIONS,
      items: {
        type: 'object', additionalProperties: false, required: ['source', 'target', 'type'],
        properties: {
          source: { type: 'string', minLength: 1, maxLength: NAME_MAX },
          target: { type: 'string', minLength: 1, maxLength: NAME_MAX },
          type: { type: 'string', minLength: 1, maxLength: RELATION_MAX },
        },
      },
    },
  },
} as const;

const SYSTEM_PROMPT = `You extract a knowledge graph from one memory. List the named entities in it (people, organizations, places, events, objects, concepts, times), each with one type from: ${ENTITY_TYPES.join(', ')}. List the relations stated between two of those entities, each as source, target and a short lower_snake_case relation type (works_at, lives_in, part_of). Answer JSON only.`;

export interface ExtractedEntity { name: string; type: string }
export interface ExtractedRelation { source: string; target: string; type: string }
export interface Extraction { entities: ExtractedEntity[]; relations: ExtractedRelation[] }

/** An entity's identity in its bank: the name lower-cased with its spaces collapsed. */
export const entityKey = (name: string) => name.trim().replace(/\s+/g, ' ').toLowerCase();

const clean = (value: unknown, max: number): string | null => {
  if (typeof value !== 'string') return null;
  // Control characters become spaces (a name is one line of text), then runs of space collapse.
  const text = [...value].map((c) => (c.charCodeAt(0) < 0x20 ? ' ' : c)).join('').trim().replace(/\s+/g, ' ').slice(0, max);
  return text === '' ? null : text;
};

/** The model's JSON to an Extraction; a shape other than the schema's throws. */
export function normaliseExtraction(answer: unknown): Extraction {
  const body = answer as { entities?: unknown; relations?: unknown } | null;
  if (!body || typeof body !== 'object' || !Array.isArray(body.entities) || !Array.isArray(body.relations)) throw new Error('the answer has no entities and relations arrays');
  const entities = new Map<string, ExtractedEntity>();
  for (const raw of body.entities.slice(0, MAX_ENTITIES) as Array<Record<string, unknown>>) {
    const name = clean(raw?.name, NAME_MAX);
    const type = clean(raw?.type, RELATION_MAX)?.toLowerCase();
    if (name === null || !type) continue;
    const known = (ENTITY_TYPES as readonly string[]).includes(type) ? type : 'other';
    if (!entities.has(entityKey(name))) entities.set(entityKey(name), { name, type: known });
  }
  const relations = new Map<string, ExtractedRelation>();
  for (const raw of body.relations.slice(0, MAX_RELATIONS) as Array<Record<string, unknown>>) {
    const source = clean(raw?.source, NAME_MAX);
    const target = clean(raw?.target, NAME_MAX);
    const type = clean(raw?.type, RELATION_MAX)?.toLowerCase().replace(/ /g, '_');
    if (source === null || target === null || !type) continue;
    for (const name of [source, target]) if (!entities.has(entityKey(name))) entities.set(entityKey(name), { name, type: 'other' });
    const relation = { source: entities.get(entityKey(source))!.name, target: entities.get(entityKey(target))!.name, type };
    relations.set(`${entityKey(source)}\u0000${entityKey(target)}\u0000${type}`, relation);
  }
  return { entities: [...entities.values()], relations: [...relations.values()] };
}

export type ChatDispatcher = Pick<Dispatcher, 'dispatch'>;

/** One call to `slot` for `text`; aborted after timeoutS or by `signal`. Throws with the reason on any failure. */
export async function extractGraph(dispatcher: ChatDispatcher, slot: string, text: string, timeoutS: number, signal?: AbortSignal): Promise<Extraction> {
  signal?.throwIfAborted();
  const gone = new AbortController();
  const onAbort = () => gone.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      gone.abort(); // the dispatcher aborts its upstream request
      reject(new Error(`the extraction slot "${slot}" gave no answer within ${timeoutS} s ([memory.graph].llm_timeout_s)`));
    }, timeoutS * 1000);
    timer.unref();
  });
  const call = dispatcher.dispatch({
    model: slot, route: 'chat', upstreamPath: '/chat/completions', contentType: 'application/json', stream: false, signal: gone.signal,
    body: (upstreamModel) => JSON.stringify({
      model: upstreamModel, temperature: 0, max_tokens: MAX_TOKENS,
      messages: [{ role: 'system', content: SYSTEM_PROMPT }, { role: 'user', content: text }],
      response_format: { type: 'json_schema', json_schema: { name: 'memory_graph', schema: EXTRACTION_SCHEMA, strict: true } },
    }),
  }).then(async (result) => ({ status: result.status, raw: (await readBody(result.body)).toString('utf8') }));
  let status: number;
  let raw: string;
  try {
    ({ status, raw } = await Promise.race([call, deadline]));
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
  signal?.throwIfAborted();
  let answer: { choices?: Array<{ message?: { content?: unknown }; finish_reason?: string }>; error?: { message?: string } };
  try {
    answer = JSON.parse(raw || '{}') as typeof answer;
  } catch {
    throw new Error(`the extraction slot "${slot}" answered ${status} with no JSON: ${raw.slice(0, 200)}`);
  }
  if (status >= 400) throw new Error(`the extraction slot "${slot}" answered ${status}: ${answer.error?.message ?? 'error'}`);
  const choice = answer.choices?.[0];
  const content = choice?.message?.content;
  if (typeof content !== 'string') throw new Error(`the extraction slot "${slot}" answered no message content`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    throw new Error(`the extraction slot "${slot}" answered text that is not whole JSON (finish_reason ${choice?.finish_reason ?? 'unknown'})`);
  }
  return normaliseExtraction(parsed);
}
