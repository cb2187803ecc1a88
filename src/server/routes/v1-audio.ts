// The OpenAI-compatible audio routes (docs/api.md, "The OpenAI-compatible surface";
// docs/routing.md, "Audio routes"):
// - POST /v1/audio/speech (JSON): `model` required; a tts slot's default_voice,
//   default_speed and default_response_format filled in for fields the request leaves out;
//   speed checked against 0.25-4.0; the audio relayed back byte for byte.
// - POST /v1/audio/transcriptions (multipart/form-data): the raw body is kept as bytes, only
//   scanned for the `model` field, and forwarded verbatim with the client's Content-Type
//   (boundary included). The engine sees the client's `model` field as sent: a slot name is
//   not rewritten to the model id inside the multipart body.
// Both go through dispatch(): with peers, a replica set (docs/scaling.md) balances them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { multipartBoundary, multipartField, withMultipartField } from '../../dispatch/multipart.js';
import { applySpeechDefaults, type SpeechDefaults } from '../../dispatch/speech.js';
import { cameFromPeer } from '../../peers/hop.js';
import { RequestError } from '../../protocol/errors.js';
import { objectBody } from '../request.js';
import type { ServerContext } from '../context.js';
import { dispatchOn } from './v1-client.js';

export function registerV1AudioRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post('/v1/audio/speech', (request, reply) => speech(ctx, request, reply));
  // Its own scope, so that only this route takes multipart bodies (elsewhere they stay 415).
  void app.register(async (scope) => {
    // The body stays one Buffer (bodyLimit applies): it is forwarded as it came.
    scope.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post('/v1/audio/transcriptions', (request, reply) => transcription(ctx, request, reply));
  });
}

const missingModel = (route: string, what: string) =>
  new RequestError('request.missing_model', `\`model\` is required on ${route}: ${what}`, { route, problems: [{ path: 'model', message: 'required (a non-empty string)' }] });

async function speech(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const body = objectBody(request);
  if (body.model === undefined || body.model === null || body.model === '') {
    throw missingModel('/v1/audio/speech', 'a tts slot name, svc/tts, a model id a slot serves, or a remote model');
  }
  if (typeof body.model !== 'string') {
    throw new RequestError('request.invalid', '`model` must be a string', { problems: [{ path: 'model', message: `expected a string, got ${typeof body.model}` }] });
  }
  // The request's own speed is checked before a slot is started for it; a slot's defaults are
  // filled in once dispatch() (a replica set, with peers) has chosen the target.
  const checked = applySpeechDefaults(body, null);
  const stream = checked.stream_format === 'sse';
  return dispatchOn(reply, (client) => ctx.dispatcher.dispatch({
    ...client,
    model: checked.model as string,
    route: 'speech',
    upstreamPath: '/audio/speech',
    contentType: 'application/json',
    stream,
    fromPeer: cameFromPeer(request.headers),
    // A slot name or alias becomes the backing model id (kept as sent when the slot has none).
    body: (model, target) => {
      const out = target.kind === 'slot' ? applySpeechDefaults(body, slotSpeechDefaults(ctx, target.slot)) : checked;
      return JSON.stringify({ ...out, model: model === '' ? out.model : model });
    },
  }));
}

async function transcription(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const route = '/v1/audio/transcriptions';
  const what = 'a multipart/form-data field `model` (a transcription slot name, svc/stt, a model id a slot serves, or a remote model)';
  const raw = request.body;
  if (raw === undefined || raw === null) throw missingModel(route, what);
  if (!Buffer.isBuffer(raw)) {
    throw new RequestError('request.unsupported_media_type', `${route} takes multipart/form-data (fields \`file\` and \`model\`); got ${request.headers['content-type'] ?? 'no Content-Type'}`, { accepts: ['multipart/form-data'] });
  }
  const contentType = request.headers['content-type'] as string;
  const boundary = multipartBoundary(contentType);
  if (boundary === null) {
    throw new RequestError('request.invalid', 'the multipart/form-data Content-Type names no boundary', { problems: [{ path: 'content-type', message: 'expected multipart/form-data; boundary=...' }] });
  }
  const model = multipartField(raw, boundary, 'model');
  if (model === null || model === '') throw missingModel(route, what);
  const stream = multipartField(raw, boundary, 'stream') === 'true';
  return dispatchOn(reply, (client) => ctx.dispatcher.dispatch({
    ...client, model, route: 'transcriptions', upstreamPath: '/audio/transcriptions', contentType, stream, fromPeer: cameFromPeer(request.headers),
    // A slot's engine sees the field as sent; a replica that knows the model by another id (a
    // replica group's member, a provider without its prefix) gets that id.
    body: (upstreamModel, target) => (target.kind === 'slot' || upstreamModel === model ? raw : (withMultipartField(raw, boundary, 'model', upstreamModel) ?? raw)),
  }));
}

/** The TTS keys of the slot's [slot] section (null when its file is gone, e.g. mid-reload). */
function slotSpeechDefaults(ctx: ServerContext, slot: string): SpeechDefaults | null {
  const entry = ctx.config.slots.find((e) => e.name === slot);
  if (!entry) return null;
  const { default_voice, default_speed, default_response_format } = entry.config.slot;
  return { default_voice, default_speed, default_response_format };
}
