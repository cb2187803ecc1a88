// What the agents service tells a driver about this gateway (agents/driver.ts GatewayWiring):
// its loopback URLs, an inference token in auth mode (one per agent, labelled agent-<name>, so
// its requests are attributed to the agent by the token too), and its chat models.
import { request } from 'undici';
import type { GatewayWiring } from '../agents/driver.js';
import type { ModelList } from '../protocol/v1-wire.js';
import type { GatewayAuth } from '../auth/gateway-auth.js';
import type { ResolvedConfig } from '../config/load.js';
import { selfUrl } from './self-url.js';

/** What the wiring reads of the gateway (ServerContext is one; a narrow type keeps context.ts free of a cycle). */
export interface WiringHost {
  readonly listening: { host: string; port: number };
  readonly config: ResolvedConfig;
  readonly auth: GatewayAuth;
  readonly version: string;
}

export const agentTokenLabel = (agent: string) => `agent-${agent}`;

/** The agent a token label names (agent-<name>), or undefined. */
export function agentOfTokenLabel(label: string): string | undefined {
  const match = /^agent-([a-z0-9][a-z0-9-]{0,31})$/.exec(label);
  return match?.[1];
}

export async function gatewayWiring(ctx: WiringHost, agent: string): Promise<GatewayWiring> {
  const apiUrl = selfUrl(ctx.listening);
  return { v1Url: `${apiUrl}/v1`, apiUrl, token: await agentToken(ctx, agent), chatModels: await chatModels(apiUrl), svcVersion: ctx.version };
}

/** In auth mode a fresh v1-only token for the agent (an older one of the same label is revoked first). */
async function agentToken(ctx: WiringHost, agent: string): Promise<string | null> {
  if (!ctx.config.env.authEnabled) return null;
  await revokeAgentTokens(ctx, agent);
  return (await ctx.auth.store.create(agentTokenLabel(agent), 'v1-only')).token;
}

/**
 * Revokes every token labelled agent-<name> (in or out of auth mode: a token minted while auth
 * was on must not outlive the agent it was for) and answers how many. Uninstall calls it.
 */
export async function revokeAgentTokens(ctx: Pick<WiringHost, 'auth'>, agent: string): Promise<number> {
  const label = agentTokenLabel(agent);
  let revoked = 0;
  for (const row of ctx.auth.store.list()) {
    if (row.label !== label) continue;
    await ctx.auth.store.revoke(row.id);
    revoked += 1;
  }
  return revoked;
}

/** The slots' model names of /v1/models (owned_by svc, not a non-chat slot's raw model id): the ones a chat goes to. */
async function chatModels(apiUrl: string): Promise<string[]> {
  const answer = await request(`${apiUrl}/v1/models`, { headersTimeout: 30_000, bodyTimeout: 30_000 });
  if (answer.statusCode !== 200) {
    await answer.body.dump();
    return [];
  }
  const list = (await answer.body.json()) as ModelList;
  return list.data.filter((m) => m.owned_by === 'svc' && !('slot' in m)).map((m) => m.id);
}
