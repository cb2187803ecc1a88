// The loop's [mcp] settings, read per request (they apply live).
import type { ResolvedConfig } from '../config/load.js';

export interface OmniSettings {
  maxRounds: number;
  toolTimeoutMs: number;
}

export function omniSettings(config: ResolvedConfig): OmniSettings {
  const { max_rounds, tool_timeout_s } = config.svc.mcp;
  return { maxRounds: max_rounds, toolTimeoutMs: tool_timeout_s * 1000 };
}
