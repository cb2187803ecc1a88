// The HTTP application: one Fastify instance, the error renderer, and the route table.
import Fastify, { type FastifyInstance } from 'fastify';
import type { RouteAccess } from '../protocol/access.js';
import { RequestError, SystemError } from '../protocol/errors.js';
import type { ServerContext } from './context.js';
import { sendError } from './errors.js';
import { parseJsonBody } from './json-body.js';
import { registerActivityRoutes } from './routes/activity.js';
import { registerEventRoutes } from './routes/events.js';
import { registerHardwareRoutes } from './routes/hardware.js';
import { registerInstallRoutes } from './routes/install.js';
import { registerMetricsRoutes } from './routes/metrics.js';
import { registerModelRoutes } from './routes/models.js';
import { registerProfileRoutes } from './routes/profiles.js';
import { registerSettingsRoutes } from './routes/settings.js';
import { registerSlotRoutes } from './routes/slots.js';
import { registerSystemRoutes } from './routes/system.js';
import { registerV1Routes } from './routes/v1.js';
import { registerV1AudioRoutes } from './routes/v1-audio.js';
import { registerV1ImageRoutes } from './routes/v1-images.js';
import { registerV1ModelRoutes } from './routes/v1-models.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route (see protocol/access.ts); required on every route. */
    access?: RouteAccess;
  }
}

const MiB = 1024 * 1024;
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

export function buildApp(ctx: ServerContext): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: ctx.config.svc.api.max_body_mb * MiB,
    // Fastify's own 503 while closing is not our envelope; the onRequest hook below answers instead.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true },
  });

  app.addHook('onRoute', (route) => {
    if (!route.config?.access) throw new Error(`route ${String(route.method)} ${route.url} declares no access class`);
  });
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback style: this runs on every request, the /v1 hot path included.
  app.addHook('onRequest', (_request, _reply, done) => {
    done(closing ? new SystemError('system.shutting_down', 'svc is shutting down and takes no new requests.', { retry_after_s: 1 }) : undefined);
  });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.setErrorHandler((error, _request, reply) => sendError(reply, error));
  app.addHook('onClose', () => ctx.dispatcher.close());
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(reply, new RequestError('request.method_not_allowed', `${request.method} is not allowed on ${path}`, { allowed }));
    }
    return sendError(reply, new RequestError('request.unknown_route', `No route ${request.method} ${path}`, { method: request.method, path }));
  });

  registerSystemRoutes(app, ctx);
  registerMetricsRoutes(app, ctx);
  registerInstallRoutes(app, ctx);
  registerSettingsRoutes(app, ctx);
  registerActivityRoutes(app, ctx);
  registerEventRoutes(app, ctx);
  registerModelRoutes(app, ctx);
  registerProfileRoutes(app, ctx);
  registerHardwareRoutes(app, ctx);
  registerV1Routes(app, ctx);
  registerV1AudioRoutes(app, ctx);
  registerV1ImageRoutes(app, ctx);
  registerSlotRoutes(app, ctx);
  registerV1ModelRoutes(app, ctx);
  return app;
}
