// Peers and health-checked upstreams (docs/scaling.md): what this gateway knows about each
// replica target, and a health check of all of them on demand.
import type { FastifyInstance } from 'fastify';
import type { PeersPayload } from '../../protocol/peers.js';
import { maskUrlSecretsIn } from '../../protocol/url-secrets.js';
import type { ServerContext } from '../context.js';

export function registerPeerRoutes(app: FastifyInstance, ctx: ServerContext): void {
  // A peer's or upstream's URL may carry a password: shown masked (protocol/url-secrets.ts).
  app.get('/api/peers', async (): Promise<PeersPayload> => ({ peers: maskUrlSecretsIn(ctx.peers.views()) }));

  app.post('/api/peers/refresh', async (): Promise<PeersPayload> => {
    await ctx.peers.refresh();
    return { peers: maskUrlSecretsIn(ctx.peers.views()) };
  });
}
