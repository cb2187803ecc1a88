// svc's own tools for the loop: each a /v1 route of the gateway, called in process through
// the dispatcher's one entry (no HTTP call to ourselves), and offered only while an
// enabled slot of its type exists (the svc/* name it dispatches to resolves). The answers are
// made small for a model to read: an embedding's dimensions and first values, a speech's size.
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { generateOnSlot, type ImageDeps, imageTarget } from '../dispatch/images/generate.js';
import type { SlotCandidate, V1Route } from '../dispatch/types.js';
import type { ToolResult } from '../mcp/tool-host.js';
import { SvcError } from '../protocol/errors.js';
import { contentTypeOf, readBody } from '../dispatch/result.js';
import { transcriptionForm } from './transcription-form.js';

/** What the tools call: the dispatcher, and for images what the image route uses (the server context). */
export interface ModalityDeps {
  dispatcher: Pick<Dispatcher, 'dispatch' | 'resolve'>;
  images: ImageDeps;
}

export interface ModalityTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** The slot type that must exist for the tool to be offered. */
  slotType: SlotCandidate['type'];
  run(deps: ModalityDeps, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult>;
}

const object = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required });
const str = (description: string) => ({ type: 'string', description });

/** Most leading values of an embedding shown to the model. */
const EMBEDDING_HEAD = 8;
/** A speech answer up to this size comes back as a data URL; a larger one only as its size. */
const SPEECH_DATA_URL_MAX = 48 * 1024;

export const MODALITY_TOOLS: readonly ModalityTool[] = [
  {
    name: 'generate_image', slotType: 'image',
    description: 'Generate an image from a prompt with the image model: returns the URL of the PNG on this gateway.',
    parameters: object({ prompt: str('What the image shows.'), size: str('WIDTHxHEIGHT, e.g. 1024x1024 (optional).') }, ['prompt']),
    run: async ({ dispatcher, images }, args, signal) => {
      const request = { prompt: String(args.prompt ?? ''), ...(typeof args.size === 'string' && { size: args.size }) };
      const target = await imageTarget(dispatcher, 'svc/image');
      if (target.kind === 'upstream') {
        const answer = await callJson(dispatcher, 'images', 'svc/image', '/images/generations', request, signal);
        return textResult({ images: answer.data ?? [] }, answer);
      }
      // The image route's own work (ComfyUI's workflow, the PNG cached at /api/images/cache/<uuid>.png).
      const gone = new AbortController();
      const onAbort = () => gone.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        const answer = await generateOnSlot(images, target, 'svc/image', request, gone);
        return textResult({ urls: answer.data.map((d) => ('url' in d ? d.url : null)).filter(Boolean) }, { data: answer.data.length });
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
  },
  {
    name: 'embed_text', slotType: 'embedding',
    description: 'Embed a text with the embedding model: returns the vector\'s dimensions and its first values.',
    parameters: object({ text: str('The text to embed.') }, ['text']),
    run: async ({ dispatcher }, args, signal) => {
      const answer = await callJson(dispatcher, 'embeddings', 'svc/embed', '/embeddings', { input: String(args.text ?? '') }, signal);
      const vector = ((answer.data as Array<{ embedding?: number[] }> | undefined)?.[0]?.embedding) ?? [];
      return textResult({ dimensions: vector.length, first_values: vector.slice(0, EMBEDDING_HEAD) }, answer);
    },
  },
  {
    name: 'rerank_documents', slotType: 'reranking',
    description: 'Rank documents by relevance to a query with the reranking model.',
    parameters: object({ query: str('The query.'), documents: { type: 'array', items: { type: 'string' }, description: 'The documents to rank.' } }, ['query', 'documents']),
    run: async ({ dispatcher }, args, signal) => {
      const answer = await callJson(dispatcher, 'rerank', 'svc/rerank', '/rerank', { query: String(args.query ?? ''), documents: Array.isArray(args.documents) ? args.documents.map(String) : [] }, signal);
      return textResult({ results: answer.results ?? [] }, answer);
    },
  },
  {
    name: 'route_to_chat', slotType: 'llm',
    description: 'Ask another chat model (a slot name, a model id, or svc/utility by default) a prompt and get its answer.',
    parameters: object({ prompt: str('The prompt.'), model: str('Which model answers (default svc/utility).') }, ['prompt']),
    run: async ({ dispatcher }, args, signal) => {
      const model = typeof args.model === 'string' && args.model !== '' ? args.model : 'svc/utility';
      const answer = await callJson(dispatcher, 'chat', model, '/chat/completions', { messages: [{ role: 'user', content: String(args.prompt ?? '') }], stream: false }, signal);
      const message = (answer.choices as Array<{ message?: { content?: string } }> | undefined)?.[0]?.message;
      return { text: message?.content ?? '', isError: false, raw: answer };
    },
  },
  {
    name: 'text_to_speech', slotType: 'tts',
    description: 'Speak a text with the text-to-speech model: returns the audio\'s type and size, and a data URL when it is small.',
    parameters: object({ text: str('The text to speak.'), voice: str('A voice the model knows (optional).') }, ['text']),
    run: async ({ dispatcher }, args, signal) => {
      const payload = { input: String(args.text ?? ''), ...(typeof args.voice === 'string' && { voice: args.voice }) };
      const answer = await call(dispatcher, 'speech', 'svc/tts', '/audio/speech', 'application/json', JSON.stringify(payload), signal);
      const audio = answer.body;
      const type = answer.contentType || 'application/octet-stream';
      const summary = { content_type: type, bytes: audio.length, ...(audio.length <= SPEECH_DATA_URL_MAX && { data_url: `data:${type};base64,${audio.toString('base64')}` }) };
      return { text: JSON.stringify(summary), isError: false, raw: { content_type: type, bytes: audio.length } };
    },
  },
  {
    name: 'transcribe_audio', slotType: 'transcription',
    description: 'Transcribe audio given as a data URL (data:audio/...;base64,...) with the speech recognition model.',
    parameters: object({ audio_url: str('The audio as a data URL.') }, ['audio_url']),
    run: async ({ dispatcher }, args, signal) => {
      const form = transcriptionForm(String(args.audio_url ?? ''));
      const called = await call(dispatcher, 'transcriptions', 'svc/stt', '/audio/transcriptions', form.contentType, form.body, signal);
      const answer = JSON.parse(called.body.toString('utf8')) as { text?: string };
      return { text: answer.text ?? '', isError: false, raw: answer };
    },
  },
];

/** The modality tools a slot serves right now. */
export function offeredModalityTools(slots: readonly SlotCandidate[]): ModalityTool[] {
  return MODALITY_TOOLS.filter((tool) => slots.some((slot) => slot.enabled && slot.type === tool.slotType));
}

const textResult = (summary: unknown, raw: unknown): ToolResult => ({ text: JSON.stringify(summary), isError: false, raw });

async function callJson(dispatcher: Pick<Dispatcher, 'dispatch'>, route: V1Route, model: string, path: string, payload: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
  const answer = await call(dispatcher, route, model, path, 'application/json', JSON.stringify({ ...payload, model }), signal);
  return JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
}

/** One in-process call, read whole; an error answer (status >= 400) is thrown as the engine's envelope. */
async function call(dispatcher: Pick<Dispatcher, 'dispatch'>, route: V1Route, model: string, path: string, contentType: string, body: string | Buffer, signal: AbortSignal): Promise<{ body: Buffer; contentType: string }> {
  const result = await dispatcher.dispatch({
    model, route, upstreamPath: path, contentType, stream: false, signal,
    body: (upstreamModel) => (typeof body === 'string' && contentType === 'application/json' ? JSON.stringify({ ...JSON.parse(body), model: upstreamModel }) : body),
  });
  const bytes = await readBody(result.body);
  signal.throwIfAborted();
  if (result.status >= 400) {
    const text = bytes.toString('utf8');
    const message = (JSON.parse(text || '{}') as { error?: { message?: string } }).error?.message ?? text;
    throw new SvcError('mcp.tool_failed', `${route} answered ${result.status}: ${message}`, { reason: 'engine', status: result.status });
  }
  return { body: bytes, contentType: contentTypeOf(result.headers) };
}
