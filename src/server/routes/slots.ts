// /api/slots and /api/install/slots: the slot API (docs/api.md, "Slots"). Handlers are
// adapters: every change is a slot command (slots/commands.ts: the arbiter, the supervisor,
// the slot file, its event and its activity row); here bodies are read, and the engine log
// is served as JSON or as a server-sent event stream.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LaunchSpec } from '../../engines/types.js';
import { quoteWord } from '../../lib/shell-words.js';
import { SvcError } from '../../protocol/errors.js';
import { AssignSlotModelRequestSchema, DEFAULT_LOG_LINES, LoadSlotRequestSchema, LOG_RING_LINES, SwapSlotRequestSchema } from '../../protocol/slot-requests.js';
import { maskUrlSecretsIn } from '../../protocol/url-secrets.js';
import { parseRequest } from '../../protocol/validate.js';
import type { CreateSlotPayload, SlotDetailPayload, SlotLaunchPayload } from '../../protocol/slots.js';
import type { SlotCommands, SlotOrigin } from '../../slots/commands.js';
import type { SlotChangeCheck, SlotConfigService } from '../../slots/slot-config.js';
import type { SlotSupervisor } from '../../slots/supervisor.js';
import type { ServerContext } from '../context.js';
import { keepAlive, openEventStream, type StreamAdmission } from '../sse.js';
import { slotChangeCheck } from '../engine-input-check.js';
import { actorOf, booleanQuery, objectBody, queryProblem, queryValue } from '../request.js';

/** How often a follow stream reads the engine log file for new lines. */
const FOLLOW_PUMP_MS = 250;
/** A comment line on an idle follow stream, so a dead client is noticed. */

const params = (request: FastifyRequest) => request.params as { name: string };

/** `lines`: how many of the last log lines; more than the ring keeps gives all it keeps. */
function linesQuery(request: FastifyRequest): number {
  const value = queryValue(request, 'lines');
  if (value === undefined) return DEFAULT_LOG_LINES;
  if (!/^\d+$/.test(value) || Number(value) < 1) return queryProblem('lines', `expected a positive integer; got ${JSON.stringify(value)}`);
  return Math.min(Number(value), LOG_RING_LINES);
}

/** The launch spec for display: the environment is only what differs from the gateway's own. */
export function launchPayload(spec: LaunchSpec, gatewayEnv: NodeJS.ProcessEnv = process.env): SlotLaunchPayload {
  const env = Object.fromEntries(Object.entries(spec.env).filter(([key, value]) => gatewayEnv[key] !== value).sort(([a], [b]) => a.localeCompare(b)));
  return {
    mode: spec.mode,
    command: spec.command,
    args: spec.args,
    command_line: [spec.command, ...spec.args].map(quoteWord).join(' '),
    env,
    base_url: spec.baseUrl,
  };
}

/** What the slot routes use: the commands for every change, the supervisor and the slot files to read. */
export interface SlotRouteDeps {
  commands: SlotCommands;
  supervisor: Pick<SlotSupervisor, 'list' | 'view' | 'preview' | 'logs' | 'subscribeLogs'>;
  slotConfig: Pick<SlotConfigService, 'entry'>;
  /** The host-only check of a change to a slot file (engine-input-check.ts), for this request. */
  changeCheck: (request: FastifyRequest, action: string, name: string) => SlotChangeCheck;
  streams: StreamAdmission;
}

export function slotRouteDeps(ctx: ServerContext): SlotRouteDeps {
  return { commands: ctx.slotCommands, supervisor: ctx.supervisor, slotConfig: ctx.slotConfig, changeCheck: (request, action, name) => slotChangeCheck(ctx, request, action, name), streams: ctx };
}

export function registerSlotRoutes(app: FastifyInstance, deps: SlotRouteDeps): void {
  const { commands, supervisor } = deps;
  const origin = (request: FastifyRequest, action?: string, name?: string): SlotOrigin => ({
    actor: actorOf(request), ...(action !== undefined && { check: deps.changeCheck(request, action, name ?? '') }),
  });

  app.get('/api/slots', async () => ({ slots: maskUrlSecretsIn(supervisor.list()) }));
  app.get('/api/slots/:name', async (request) => slotDetail(deps, params(request).name));

  app.post('/api/slots', async (request, reply) => {
    const body = objectBody(request);
    const created = await commands.create(body, origin(request, 'slot.create', typeof body.name === 'string' ? body.name : ''));
    reply.code(201);
    const payload: CreateSlotPayload = { ...supervisor.view(created.name), ctx_size: created.ctx_size, provider_reason: created.provider_reason, warnings: created.warnings };
    return payload;
  });
  app.put('/api/slots/:name', async (request) => commands.edit(params(request).name, objectBody(request), origin(request, 'slot.edit_config', params(request).name)));
  app.delete('/api/slots/:name', async (request) => commands.delete(params(request).name, booleanQuery(request, 'force'), origin(request)));

  app.post('/api/slots/:name/load', async (request) => {
    const { model } = parseRequest(LoadSlotRequestSchema, request.body === undefined ? {} : objectBody(request));
    return commands.load(params(request).name, model, origin(request));
  });
  app.post('/api/slots/:name/unload', async (request) => commands.unload(params(request).name, origin(request)));
  app.post('/api/slots/:name/restart', async (request) => commands.restart(params(request).name, origin(request)));
  app.post('/api/slots/:name/swap', async (request) => {
    const { model, persist } = parseRequest(SwapSlotRequestSchema, objectBody(request));
    return commands.swap(params(request).name, model, persist ?? true, origin(request));
  });
  app.put('/api/install/slots/:name/model', async (request) => {
    const { model } = parseRequest(AssignSlotModelRequestSchema, objectBody(request));
    return commands.assignDefault(params(request).name, model, origin(request));
  });

  const follows = new Set<() => void>();
  // An open follow stream would hold a graceful shutdown until its grace period ends.
  app.addHook('preClose', async () => {
    for (const end of [...follows]) end();
  });

  app.get('/api/slots/:name/logs', async (request, reply) => {
    const { name } = params(request);
    const lines = linesQuery(request);
    const follow = booleanQuery(request, 'follow');
    const tail = await supervisor.logs(name, lines);
    if (!follow) return { slot: name, lines: tail };
    return followLogs(deps, name, tail, reply, follows);
  });
}

/** Server-sent events: one `data: <JSON string>` event per log line, until the client goes. */
/** GET /api/slots/<name>: the view, the file, and the command a start would run (or why it cannot). */
async function slotDetail({ supervisor, slotConfig }: SlotRouteDeps, name: string): Promise<SlotDetailPayload> {
  const view = supervisor.view(name);
  const entry = slotConfig.entry(name);
  let launch: SlotLaunchPayload | null = null;
  let launchError: SlotDetailPayload['launch_error'] = null;
  try {
    launch = launchPayload(await supervisor.preview(name));
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    launchError = { code: error.code, message: error.message, details: error.details };
  }
  // A URL in the env, the flags or an error shows its password masked; a PUT of the masked form keeps it.
  return maskUrlSecretsIn({ ...view, file: entry.file, config: entry.config as unknown as SlotDetailPayload['config'], launch, launch_error: launchError });
}

function followLogs(deps: SlotRouteDeps, name: string, tail: string[], reply: FastifyReply, follows: Set<() => void>): void {
  const raw = openEventStream(reply, deps.streams);
  const send = (line: string) => raw.write(`data: ${JSON.stringify(line)}\n\n`);
  for (const line of tail) send(line);
  // The tail and this subscription run in one turn of the event loop (the tail's pump ended
  // just before it), and a pump adds lines only between turns: no line is lost or sent twice.
  const unsubscribe = deps.supervisor.subscribeLogs(name, send);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(pump);
    stopKeepAlive();
    unsubscribe();
    follows.delete(end);
    if (!raw.writableEnded) raw.end();
  };
  // Reads new lines from the file; subscribers get them. A rejection: the slot was deleted.
  const pump = setInterval(() => void deps.supervisor.logs(name, 1).catch(end), FOLLOW_PUMP_MS);
  const stopKeepAlive = keepAlive(raw);
  follows.add(end);
  raw.on('close', end);
  raw.on('error', end);
}
