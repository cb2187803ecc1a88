// Where one agent's things live (the seam's AgentPaths), from svc's config and state roots.
// The agents service makes the same paths; the hermes routes use this until they share one.
import { join } from 'node:path';
import { isAgentName } from '../names.js';
import type { AgentPaths } from '../driver.js';

export function agentPathsOf(roots: { configRoot: string; stateRoot: string }, name: string): AgentPaths {
  if (!isAgentName(name)) throw new Error(`not an agent name: ${name}`);
  const installDir = join(roots.stateRoot, 'agents', name);
  return { installDir, dataDir: join(installDir, 'data'), stateDir: join(installDir, 'provision'), configPath: join(roots.configRoot, 'agents', `${name}.toml`) };
}
