// The loop's [mcp] settings: max_rounds and tool_timeout_s, with their defaults when the
// section (or a key) is not there.
import type { ResolvedConfig } from '../config/load.js';

export interface OmniSettings {
  maxRounds: number;
  toolTimeoutMs: number;
}

export const DEFAULT_MAX_ROUNDS = 8;
export const DEFAULT_TOOL_TIMEOUT_S = 60;

export function omniSettings(config: ResolvedConfig): OmniSettings {
  const mcp = (config.svc as { mcp?: { max_rounds?: unknown; tool_timeout_s?: unknown } }).mcp;
  const rounds = typeof mcp?.max_rounds === 'number' && mcp.max_rounds >= 1 ? Math.floor(mcp.max_rounds) : DEFAULT_MAX_ROUNDS;
  const timeoutS = typeof mcp?.tool_timeout_s === 'number' && mcp.tool_timeout_s > 0 ? mcp.tool_timeout_s : DEFAULT_TOOL_TIMEOUT_S;
  return { maxRounds: rounds, toolTimeoutMs: timeoutS * 1000 };
}
