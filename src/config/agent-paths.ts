// Where one bundled agent's things live (docs/agents.md): the gateway's agents service and the
// CLI (`svc agent run`, which runs a cli agent without the gateway) both read them from here.
// The name is checked first: it becomes a folder and a file name, so it must never hold a path.
import { join } from 'node:path';
import type { SvcPaths } from './paths.js';

const AGENT_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;

export interface AgentDirs {
  /** <state>/agents/<name>: what svc installed (npm prefix, venv, unit files). */
  installDir: string;
  /** <state>/agents/<name>/data: the agent's own data (sessions, personas); kept by uninstall unless purged. */
  dataDir: string;
  /** <state>/agents/<name>/provision: provision.json and provision-logs/<phase>.log. */
  stateDir: string;
  /** <config>/agents/<name>.toml */
  configPath: string;
}

export const agentsConfigDir = (paths: SvcPaths) => join(paths.configRoot, 'agents');
export const agentsStateDir = (paths: SvcPaths) => join(paths.stateRoot, 'agents');

/** The directories of `name`; throws on a name that is not an agent name (a traversal guard, not a message). */
export function agentDirs(paths: SvcPaths, name: string): AgentDirs {
  if (!AGENT_NAME.test(name)) throw new Error(`not an agent name: ${JSON.stringify(name)}`);
  const installDir = join(agentsStateDir(paths), name);
  return { installDir, dataDir: join(installDir, 'data'), stateDir: join(installDir, 'provision'), configPath: join(agentsConfigDir(paths), `${name}.toml`) };
}

/** The run descriptor a cli agent's driver writes (protocol/agents.ts AgentRunSpec). */
export const agentRunSpecPath = (dirs: AgentDirs) => join(dirs.installDir, 'run.json');
