// Peers and health-checked upstreams (docs/scaling.md): what this gateway knows about each
// replica target, and a health check of all of them on demand.
import type { FastifyInstance } from 'fastify';
import type { PeersPayload } from '../../protocol/peers.js';
import type { ServerContext } from '../context.js';

export function registerPeerRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/api/peers', async (): Promise<PeersPayload> => ({ peers: ctx.peers.views() }));

  app.post('/api/peers/refresh', async (): Promise<PeersPayload> => {
    await ctx.peers.refresh();
    return { peers: ctx.peers.views() };
  });
}
