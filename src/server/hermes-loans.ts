// What the hermes phase machine borrows from this gateway (src/agents/hermes/types.ts
// ProvisionDeps): its own /v1/models over loopback (what the agent will see), its bundled
// tool servers, memory when it is on, and the voice slots. Read at each run: memory may be
// switched on or off between two runs.
import type { HermesLoans } from '../agents/hermes/driver.js';
import type { ModelEntryLite } from '../agents/hermes/types.js';
import type { ResolvedConfig } from '../config/load.js';
import type { McpService } from '../mcp/service.js';
import type { MemoryService } from '../memory/service.js';
import { selfUrl as selfUrlOf } from './self-url.js';

/** What the loans read of the gateway (ServerContext is one; a narrow type keeps context.ts free of a cycle). */
export interface LoanHost {
  readonly listening: { host: string; port: number };
  readonly config: ResolvedConfig;
  readonly mcp: McpService;
  readonly memory: MemoryService;
}

/** The gateway as a local client reaches it. */
const selfUrl = (ctx: LoanHost) => selfUrlOf(ctx.listening);

async function selfModels(ctx: LoanHost): Promise<ModelEntryLite[]> {
  const response = await fetch(`${selfUrl(ctx)}/v1/models`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET /v1/models answered ${response.status}`);
  return ((await response.json()) as { data: ModelEntryLite[] }).data;
}

export function hermesLoans(ctx: LoanHost): HermesLoans {
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
