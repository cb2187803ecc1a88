// The HTTP application: one Fastify instance, the error renderer, and the route table.
import { createServer } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { type RouteAccess, routeAccess } from '../protocol/access.js';
import type { Decision } from '../auth/guard.js';
import { RequestError, SvcError } from '../protocol/errors.js';
import { trackOwnSockets } from '../lib/own-sockets.js';
import { Admission } from './admission.js';
import { browserRulesOf } from './browser-rules.js';
import type { ServerContext } from './context.js';
import { answerClientError } from './client-errors.js';
import { clientBrokeOff, MAX_PATH_PARAM, sendError } from './errors.js';
import { type DirectHandler, FrontDoor } from './front-door.js';
import { serverTiming } from '../dispatch/server-timing.js';
import { isV1Path, parseJsonBody } from './json-body.js';
import { arrivalOf, markArrival, setIdentity } from './request.js';
import { registerActivityRoutes } from './routes/activity.js';
import { registerApprovalRoutes } from './routes/approvals.js';
import { registerMcpRoutes } from './routes/mcp.js';
import { registerMemoryRoutes } from './routes/memory.js';
import { registerAgentRoutes } from './routes/agents.js';
import { registerMemoryGraphRoutes } from './routes/memory-graph.js';
import { registerHermesAgentRoutes } from './routes/agents-hermes.js';
import { registerPersonaRoutes } from './routes/agents-personas.js';
import { registerMcpAdminRoutes } from './mcp-admin/front.js';
import { registerMcpMemoryRoutes } from './mcp-memory/front.js';
import { registerAuthRoutes } from './routes/auth.js';
import { registerDashboardRoutes } from './routes/dashboard.js';
import { registerDoctorRoutes } from './routes/doctor.js';
import { isReservedPath } from './dashboard-files.js';
import { registerEventRoutes } from './routes/events.js';
import { registerHardwareRoutes } from './routes/hardware.js';
import { registerInstallRoutes } from './routes/install.js';
import { registerMetricsRoutes } from './routes/metrics.js';
import { modelRouteDeps, registerModelRoutes } from './routes/models.js';
import { registerPullRoutes } from './routes/pulls.js';
import { registerStackRoutes } from './routes/stacks.js';
import { registerUpdateRoutes } from './routes/updates.js';
import { registerProfileRoutes } from './routes/profiles.js';
import { registerSettingsRoutes } from './routes/settings.js';
import { registerSlotRoutes, slotRouteDeps } from './routes/slots.js';
import { registerSystemRoutes } from './routes/system.js';
import { registerV1Routes } from './routes/v1.js';
import { registerPeerRoutes } from './routes/peers.js';
import { registerV1AudioRoutes } from './routes/v1-audio.js';
import { registerV1ImageRoutes } from './routes/v1-images.js';
import { registerV1ModelRoutes } from './routes/v1-models.js';
import { registerV1ResponseRoutes } from './routes/v1-responses.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route: set from ROUTE_ACCESS_TABLE (protocol/access.ts) when the route is added. */
    access?: RouteAccess;
    /** Answered by the front door (front-door.ts) without Fastify's pipeline; the route's own handler serves app.inject. */
    direct?: DirectHandler;
  }
}

const MiB = 1024 * 1024;
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

function noRouteSchemas(): never {
  throw new Error('svc routes declare no JSON schemas: request bodies are validated with the zod schemas in src/protocol/');
}

export interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
  readonly access: RouteAccess;
}

const routesOf = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Every route the app registered, HEAD twins included, with its access class (access-table.test.ts walks them). */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return routesOf.get(app) ?? [];
}

/** A path as the router gives its params: percent-decoded where that is valid, no trailing slash (ignoreTrailingSlash). */
function decodedPath(path: string): string {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  try {
    return decodeURIComponent(trimmed);
  } catch {
    return trimmed;
  }
}

/** Fastify's own default, which a server from serverFactory does not get by itself. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

function createFastify(front: FrontDoor, bodyLimit: number): FastifyInstance {
  return Fastify({
    logger: false,
    bodyLimit,
    serverFactory: (fastifyHandler) => {
      // A request without Host is the front door's to refuse, in the envelope (Node's own check answers an empty 400).
      const server = createServer({ requireHostHeader: false }, (req, res) => front.handle(req, res, fastifyHandler));
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      return server;
    },
    // Fastify's own 503 while closing is not our envelope; the onRequest hook answers instead.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM },
    // Fastify's own answers are not our envelope: what Node's parser refuses (client-errors.ts)
    // and what the router refuses (a path that is not percent-encoding, an overlong name) go
    // through the one renderer.
    clientErrorHandler: answerClientError,
    frameworkErrors: (error, _request, reply) => void sendError(reply, error),
    // Bodies are validated by the zod schemas in protocol/, never by route JSON schemas, so
    // Fastify's ajv and fast-json-stringify compilers (about 150 ms of start-up) never load.
    schemaController: { compilersFactory: { buildValidator: noRouteSchemas, buildSerializer: noRouteSchemas } },
  });
}

/** Each route's access from the one table, and every request admitted by it before its handler. */
function addAccessHooks(app: FastifyInstance, front: FrontDoor, admission: Admission): void {
  // Routes do not declare their own access: the one table does, and a route missing from it
  // is 'unlisted', which the guard refuses (access-table.test.ts fails for it first).
  const registered: RegisteredRoute[] = [];
  routesOf.set(app, registered);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) registered.push({ method, url: route.url, access: routeAccess(method, route.url) });
    const classes = new Set(methods.map((method) => routeAccess(method, route.url)));
    if (classes.size !== 1) throw new Error(`route ${methods.join(',')} ${route.url} has methods of different access classes; register them apart`);
    const access = [...classes][0]!;
    route.config = { ...route.config, access };
    if (route.config.direct) front.add(route.method, route.url, access, route.config.direct);
  });
  app.addHook('preClose', async () => admission.close());
  // The same admission the front door asks; a request for no route is admitted as public (it gets a 404 or 405).
  app.addHook('onRequest', (request, _reply, done) => {
    markArrival(request);
    const settle = (decision: Decision) => {
      if (decision instanceof SvcError) return done(decision);
      setIdentity(request, decision);
      done();
    };
    const decision = admission.admit(request.routeOptions.config.access ?? 'public', request.raw);
    if (decision instanceof Promise) decision.then(settle, done);
    else settle(decision);
  });
}

/** Server-Timing on /v1, the JSON body parser, and every failure rendered as the envelope. */
function addAnswerHooks(app: FastifyInstance): void {
  // Every /v1 answer carries Server-Timing (docs/performance.md); the front door's routes and
  // relayed answers set it themselves, this covers the rest answered through Fastify.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.url.startsWith('/v1/') && !reply.hasHeader('server-timing')) reply.header('server-timing', serverTiming(arrivalOf(request)));
    done(null, payload);
  });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    try {
      // No body at all is no body, whatever Content-Type says (clients send it on DELETE).
      done(null, body === '' ? undefined : parseJsonBody(body as string, { nul: !isV1Path(request.url) }));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.setErrorHandler((error, request, reply) => {
    if (!clientBrokeOff(error, request.raw)) return sendError(reply, error);
    reply.hijack();
    reply.raw.destroy();
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    // Under /api and /v1 the dashboard's GET /* matches anything; that is no GET route there.
    const allowed = METHODS.filter((method) => {
      const found = app.findRoute({ method, url: path });
      const star = (found?.params as Record<string, string> | undefined)?.['*'];
      return found !== null && !(isReservedPath(path) && star !== undefined && `/${star}` === decodedPath(path));
    });
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(reply, new RequestError('request.method_not_allowed', `${request.method} is not allowed on ${path}`, { allowed }));
    }
    return sendError(reply, new RequestError('request.unknown_route', `No route ${request.method} ${path}`, { method: request.method, path }));
  });
}

export function buildApp(ctx: ServerContext): FastifyInstance {
  // Before anything connects: the gateway's requests to itself must never pass for the host's.
  trackOwnSockets();
  const admission = new Admission(ctx.auth.guard, () => browserRulesOf(ctx.config));
  const bodyLimit = ctx.config.svc.api.max_body_mb * MiB;
  const front = new FrontDoor(admission, bodyLimit);
  const app = createFastify(front, bodyLimit);
  addAccessHooks(app, front, admission);
  addAnswerHooks(app);
  app.addHook('onClose', () => ctx.dispatcher.close());

  registerSystemRoutes(app, ctx);
  registerAuthRoutes(app, ctx);
  registerMetricsRoutes(app, ctx);
  registerInstallRoutes(app, ctx);
  registerSettingsRoutes(app, ctx);
  registerActivityRoutes(app, ctx);
  registerEventRoutes(app, ctx);
  registerModelRoutes(app, modelRouteDeps(ctx));
  registerPullRoutes(app, ctx);
  registerStackRoutes(app, ctx);
  registerUpdateRoutes(app, ctx);
  registerProfileRoutes(app, ctx);
  registerHardwareRoutes(app, ctx);
  registerDoctorRoutes(app, ctx);
  registerV1Routes(app, ctx);
  registerV1ResponseRoutes(app, ctx);
  registerV1AudioRoutes(app, ctx);
  registerV1ImageRoutes(app, ctx);
  registerSlotRoutes(app, slotRouteDeps(ctx));
  registerV1ModelRoutes(app, ctx);
  registerMcpRoutes(app, ctx);
  registerApprovalRoutes(app, ctx);
  registerMcpAdminRoutes(app, ctx);
  registerMemoryRoutes(app, ctx);
  registerAgentRoutes(app, ctx);
  registerMcpMemoryRoutes(app, ctx);
  registerMemoryGraphRoutes(app, ctx);
  registerHermesAgentRoutes(app, ctx);
  registerPersonaRoutes(app, ctx);
  registerPeerRoutes(app, ctx);
  // Last, and it takes every GET path no other route has (the dashboard's files and views).
  registerDashboardRoutes(app);
  return app;
}
