// /api/slots and /api/install/slots: the slot API (docs/api.md, "Slots"). Handlers are
// thin: the supervisor runs engines, slot-config.ts changes slot files; here bodies are
// read, every mutation becomes an activity row (failures too), and the engine log is
// served as JSON or as a server-sent event stream.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LaunchSpec } from '../../engines/types.js';
import { quoteWord } from '../../lib/shell-words.js';
import { SlotError, SvcError } from '../../protocol/errors.js';
import {
  AssignSlotModelRequestSchema, CreateSlotRequestSchema, DEFAULT_LOG_LINES, EditSlotRequestSchema, LoadSlotRequestSchema, LOG_RING_LINES, SwapSlotRequestSchema,
} from '../../protocol/slot-requests.js';
import { keepMaskedSecrets, maskUrlSecretsIn } from '../../protocol/url-secrets.js';
import { parseRequest } from '../../protocol/validate.js';
import type { CreateSlotPayload, SlotDetailPayload, SlotLaunchPayload } from '../../protocol/slots.js';
import { slotStateDir } from '../../config/slot-state-file.js';
import type { SlotFile } from '../../config/schema/slot.js';
import type { SlotView } from '../../slots/view.js';
import type { ServerContext } from '../context.js';
import { openEventStream } from '../sse.js';
import { slotChangeCheck } from '../engine-input-check.js';
import { refusalRecorded } from '../host-authority.js';
import { actorOf, booleanQuery, objectBody, queryProblem, queryValue } from '../request.js';


/** How often a follow stream reads the engine log file for new lines. */
const FOLLOW_PUMP_MS = 250;
/** A comment line on an idle follow stream, so a dead client is noticed. */
const FOLLOW_HEARTBEAT_MS = 15_000;
/** States in which an engine may be running or about to: deleting needs force. */
const BUSY_STATES = new Set(['starting', 'warming', 'ready', 'stopping']);

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

/** A PUT's env, extra_args and file as sent, except values that are exactly what GET /api/slots/<name> showed masked: those stay as stored. */
function keepSlotSecrets(body: Record<string, unknown>, config: SlotFile | undefined): Record<string, unknown> {
  if (!config) return body;
  return {
    ...body,
    ...(body.env !== undefined && { env: keepMaskedSecrets(body.env, config.server.env) }),
    ...(body.extra_args !== undefined && { extra_args: keepMaskedSecrets(body.extra_args, config.server.extra_args) }),
    ...(body.file !== undefined && { file: keepMaskedSecrets(body.file, config) }),
  };
}

export function registerSlotRoutes(app: FastifyInstance, ctx: ServerContext): void {
  /** Run a mutation; a failure is an activity row (with its code) before it is rethrown. */
  const mutate = async <T>(request: FastifyRequest, action: string, target: string, details: Record<string, unknown>, operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation();
    } catch (error) {
      if (error instanceof SvcError && !refusalRecorded(error)) {
        ctx.record({ action, target, actor: actorOf(request), outcome: 'error', message: error.message, details: { ...details, code: error.code, ...error.details } });
      }
      throw error;
    }
  };
  const record = (request: FastifyRequest, action: string, target: string, details: Record<string, unknown>, message?: string) =>
    ctx.record({ action, target, actor: actorOf(request), details, ...(message !== undefined && { message }) });
  const runtimeDetails = (view: SlotView) => ({ state: view.state, model: view.model, port: view.port, pid: view.pid });

  app.get('/api/slots', async () => ({ slots: maskUrlSecretsIn(ctx.supervisor.list()) }));

  app.get('/api/slots/:name', async (request): Promise<SlotDetailPayload> => {
    const { name } = params(request);
    const view = ctx.supervisor.view(name);
    const entry = ctx.slotConfig.entry(name);
    let launch: SlotLaunchPayload | null = null;
    let launchError: SlotDetailPayload['launch_error'] = null;
    try {
      launch = launchPayload(await ctx.supervisor.preview(name));
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      launchError = { code: error.code, message: error.message, details: error.details };
    }
    // A URL in the env, the flags or an error shows its password masked; a PUT of the masked form keeps it.
    return maskUrlSecretsIn({ ...view, file: entry.file, config: entry.config as unknown as SlotDetailPayload['config'], launch, launch_error: launchError });
  });

  app.post('/api/slots', async (request, reply) => {
    const body = objectBody(request);
    const target = typeof body.name === 'string' ? body.name : '';
    const created = await mutate(request, 'slot.create', target, { request: body }, () => ctx.slotConfig.create(parseRequest(CreateSlotRequestSchema, body), slotChangeCheck(ctx, request, 'slot.create', target)));
    record(request, 'slot.create', created.name, { ...created });
    const { name, file, type, provider, model, port, device } = created;
    ctx.events.publish({ type: 'slot.created', source: `slot:${name}`, message: `slot ${name} created (${file})`, data: { slot: name, file, type, provider, model, port, device } });
    reply.code(201);
    const payload: CreateSlotPayload = { ...ctx.supervisor.view(created.name), ctx_size: created.ctx_size, provider_reason: created.provider_reason, warnings: created.warnings };
    return payload;
  });

  app.put('/api/slots/:name', async (request) => {
    const { name } = params(request);
    const body = keepSlotSecrets(objectBody(request), ctx.config.slots.find((s) => s.name === name)?.config);
    const changes = await mutate(request, 'slot.edit_config', name, { request: body }, () => ctx.slotConfig.edit(name, parseRequest(EditSlotRequestSchema, body), slotChangeCheck(ctx, request, 'slot.edit_config', name)));
    const view = ctx.supervisor.view(name);
    const restartRequired = changes.length > 0 && BUSY_STATES.has(view.state);
    if (changes.length > 0) {
      record(request, 'slot.edit_config', name, { changes, restart_required: restartRequired });
      const keys = changes.map((c) => c.key);
      ctx.events.publish({ type: 'slot.edited', source: `slot:${name}`, message: `slot ${name} edited: ${keys.join(', ')}`, data: { slot: name, keys, restart_required: restartRequired } });
    }
    return { slot: view, changes, restart_required: restartRequired };
  });

  app.delete('/api/slots/:name', async (request) => {
    const { name } = params(request);
    const force = booleanQuery(request, 'force');
    const result = await mutate(request, 'slot.delete', name, { force }, async () => {
      const view = ctx.supervisor.view(name);
      if (!force && (BUSY_STATES.has(view.state) || view.in_flight > 0)) {
        const why = view.in_flight > 0 ? `has ${view.in_flight} request(s) in flight` : `is ${view.state}`;
        throw new SlotError('slot.busy', `slot ${name} ${why}; unload it first (svc slot unload ${name}) or delete with force (svc slot delete ${name} --force)`, {
          slot: name,
          state: view.state,
          in_flight: view.in_flight,
        });
      }
      const file = await ctx.slotConfig.remove(name);
      // The slot is gone from the running config; reconcile stops its engine.
      await ctx.supervisor.reconcile();
      return { deleted: name, file, state_dir: slotStateDir(ctx.paths.stateRoot, name), was: view.state };
    });
    record(request, 'slot.delete', name, { force, file: result.file, was: result.was });
    ctx.events.publish({ type: 'slot.deleted', source: `slot:${name}`, message: `slot ${name} deleted (${result.file})`, data: { slot: name, file: result.file, was: result.was, force } });
    return result;
  });

  app.post('/api/slots/:name/load', async (request) => {
    const { name } = params(request);
    const { model: ref } = parseRequest(LoadSlotRequestSchema, request.body === undefined ? {} : objectBody(request));
    const view = await mutate(request, 'slot.load', name, { ...(ref !== undefined && { model: ref }) }, async () => {
      const model = ref === undefined ? undefined : ctx.slotConfig.modelIdFor(ref);
      // An explicit load takes the GPU the way a request would (slots/gpu-arbiter.ts).
      await ctx.arbiter.beforeLoad(name);
      await ctx.supervisor.load(name, model);
      return ctx.supervisor.view(name);
    });
    record(request, 'slot.load', name, { ...runtimeDetails(view), ...(ref !== undefined && { override: true }) });
    return view;
  });

  app.post('/api/slots/:name/unload', async (request) => {
    const { name } = params(request);
    const view = await mutate(request, 'slot.unload', name, {}, async () => {
      const was = ctx.supervisor.view(name).state;
      await ctx.supervisor.unload(name);
      return { view: ctx.supervisor.view(name), was };
    });
    record(request, 'slot.unload', name, { was: view.was, state: view.view.state });
    return view.view;
  });

  app.post('/api/slots/:name/restart', async (request) => {
    const { name } = params(request);
    const view = await mutate(request, 'slot.restart', name, {}, async () => {
      await ctx.supervisor.restart(name);
      return ctx.supervisor.view(name);
    });
    record(request, 'slot.restart', name, runtimeDetails(view));
    return view;
  });

  app.post('/api/slots/:name/swap', async (request) => {
    const { name } = params(request);
    const body = parseRequest(SwapSlotRequestSchema, objectBody(request));
    const ref = body.model;
    const persist = body.persist ?? true;
    const result = await mutate(request, 'slot.swap', name, { model: ref, persist }, async () => {
      const entry = ctx.slotConfig.entry(name);
      const model = ctx.slotConfig.modelIdFor(ref);
      const before = ctx.supervisor.view(name).model;
      // Refuse before the file is written: a disabled slot is never started.
      if (!entry.config.slot.enabled) throw new SlotError('slot.disabled', `slot ${name} is disabled in ${entry.file}`, { slot: name });
      if (persist) await ctx.slotConfig.persistDefaultModel(name, model);
      try {
        // A swap is a load on the new model (the supervisor stops an engine on another one first).
        await ctx.supervisor.load(name, model);
      } finally {
        // Persisted: the slot file now says the same; no override should outlive the swap.
        if (persist) ctx.supervisor.clearModelOverride(name);
      }
      return { view: ctx.supervisor.view(name), before, model };
    });
    record(request, 'slot.swap', name, { before: result.before, after: result.model, persist, pid: result.view.pid, port: result.view.port });
    return result.view;
  });

  app.put('/api/install/slots/:name/model', async (request) => {
    const { name } = params(request);
    const { model: ref } = parseRequest(AssignSlotModelRequestSchema, objectBody(request));
    const result = await mutate(request, 'slot.edit_defaults', name, { model: ref }, async () => {
      ctx.slotConfig.entry(name);
      const model = ctx.slotConfig.modelIdFor(ref);
      const before = await ctx.slotConfig.persistDefaultModel(name, model);
      return { model, before };
    });
    const view = ctx.supervisor.view(name);
    record(request, 'slot.edit_defaults', name, { key: 'model.default', before: result.before, after: result.model, state: view.state });
    return { slot: view, model: result.model, before: result.before };
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
    const tail = await ctx.supervisor.logs(name, lines);
    if (!follow) return { slot: name, lines: tail };
    return followLogs(ctx, name, tail, reply, follows);
  });
}

/** Server-sent events: one `data: <JSON string>` event per log line, until the client goes. */
function followLogs(ctx: ServerContext, name: string, tail: string[], reply: FastifyReply, follows: Set<() => void>): void {
  const raw = openEventStream(reply, ctx);
  const send = (line: string) => raw.write(`data: ${JSON.stringify(line)}\n\n`);
  for (const line of tail) send(line);
  // The tail and this subscription run in one turn of the event loop (the tail's pump ended
  // just before it), and a pump adds lines only between turns: no line is lost or sent twice.
  const unsubscribe = ctx.supervisor.subscribeLogs(name, send);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(pump);
    clearInterval(heartbeat);
    unsubscribe();
    follows.delete(end);
    if (!raw.writableEnded) raw.end();
  };
  // Reads new lines from the file; subscribers get them. A rejection: the slot was deleted.
  const pump = setInterval(() => void ctx.supervisor.logs(name, 1).catch(end), FOLLOW_PUMP_MS);
  const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), FOLLOW_HEARTBEAT_MS);
  follows.add(end);
  raw.on('close', end);
  raw.on('error', end);
}
