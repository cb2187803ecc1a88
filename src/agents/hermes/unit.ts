// The systemd unit of a daemon agent, svc-agent@<id>.service (docs/agents.md, "hermes"; the original's
// hal0-agent@). Rendered per agent into its install folder, with absolute paths, so the
// file verifies with `systemd-analyze verify` as it is and `svc setup` can link it in.
import { serviceUnitTail } from '../../deploy/systemd.js';
import { quoteUnitWord as quote } from '../../lib/shell-words.js';
import type { AgentPaths } from '../driver.js';

export interface AgentUnitInput {
  agent: string;
  /** The runtime executable (the venv's hermes, or SVC_HERMES_RUNTIME). */
  runtime: string;
  paths: Pick<AgentPaths, 'dataDir' | 'stateDir' | 'installDir'>;
  /** The user the agent runs as (the spec's User=hal0); null: the unit's default. */
  user: string | null;
}

export const agentUnitName = (agent: string) => `svc-agent@${agent}.service`;

export function renderAgentUnit(input: AgentUnitInput): string {
  const { dataDir, stateDir, installDir } = input.paths;
  return [
    `# Rendered by svc agent install ${input.agent}; svc rewrites it on every provision.`,
    '[Unit]',
    `Description=svc agent ${input.agent}`,
    'After=network-online.target svc.service',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    ...(input.user ? [`User=${input.user}`, `Group=${input.user}`] : []),
    `Environment=HERMES_HOME=${quote(dataDir)}`,
    `EnvironmentFile=-${dataDir}/.env`,
    `WorkingDirectory=${dataDir}`,
    `ExecStart=${quote(input.runtime)} gateway run`,
    'Restart=on-failure',
    'RestartSec=5',
    ...serviceUnitTail([dataDir, stateDir, installDir].map(quote).join(' ')),
  ].join('\n');
}
