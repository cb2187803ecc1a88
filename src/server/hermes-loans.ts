// What the hermes phase machine borrows from this gateway (src/agents/hermes/types.ts
// ProvisionDeps): its own /v1/models over loopback (what the agent will see), its bundled
// tool servers, memory when it is on, the voice slots, and its wiring (URLs, version).
import type { GatewayWiring } from '../agents/driver.js';
import type { HermesLoans } from '../agents/hermes/driver.js';
import { chatModels } from '../agents/hermes/phases-gateway.js';
import type { ModelEntryLite } from '../agents/hermes/types.js';
import type { ServerContext } from './context.js';

/** The gateway as a local client reaches it (a wildcard listen address is reached on loopback). */
export function selfUrl(ctx: ServerContext): string {
  const host = ['0.0.0.0', '::', ''].includes(ctx.listening.host) ? '127.0.0.1' : ctx.listening.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${ctx.listening.port}`;
}

async function selfModels(ctx: ServerContext): Promise<ModelEntryLite[]> {
  const response = await fetch(`${selfUrl(ctx)}/v1/models`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET /v1/models answered ${response.status}`);
  return ((await response.json()) as { data: ModelEntryLite[] }).data;
}

export function hermesLoans(ctx: ServerContext): HermesLoans {
  return {
    models: () => selfModels(ctx),
    mcpServers: async () => {
      const servers = (await ctx.mcp.list()).filter((s) => s.bundled);
      return Object.fromEntries(servers.map((s) => [s.id, s.connect_url.startsWith('/') ? `${selfUrl(ctx)}${s.connect_url}` : s.connect_url]));
    },
    memory: ctx.config.svc.memory.enabled
      ? { add: (body) => ctx.memory.add({ agent: 'hermes', private: false }, body, 'agent:hermes') }
      : null,
    voiceSlots: () => {
      const enabled = ctx.config.slots.filter((s) => s.config.slot.enabled);
      return {
        stt: enabled.find((s) => s.config.slot.type === 'transcription')?.name ?? null,
        tts: enabled.find((s) => s.config.slot.type === 'tts')?.name ?? null,
      };
    },
    env: process.env,
  };
}

/**
 * The wiring of a provisioning run started from the routes. Auth mode's inference token is
 * minted by the agents service when it installs; a run from here keeps the one already in
 * the agent's .env (null: none yet, the agent reaches /v1 only in default mode).
 */
export async function hermesWiring(ctx: ServerContext): Promise<GatewayWiring> {
  const apiUrl = selfUrl(ctx);
  const models = await selfModels(ctx).catch(() => []);
  return { v1Url: `${apiUrl}/v1`, apiUrl, token: null, chatModels: chatModels(models), svcVersion: ctx.version };
}
