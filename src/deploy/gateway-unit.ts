// The API's systemd unit as `svc setup` installs it: deploy/svc.service with the absolute
// command of this svc (node and its bin, so PATH does not matter) and this home's paths.
import type { SvcPaths } from '../config/paths.js';
import { quoteUnitWord as quote } from '../lib/shell-words.js';
import { serviceUnitTail } from './systemd.js';

/** The gateway's own unit (deploy/svc.service in the package). */
export const API_UNIT = 'svc.service';

export interface ApiUnitInput {
  node: string;
  bin: string;
  paths: Pick<SvcPaths, 'configRoot' | 'stateRoot' | 'apiEnv'>;
  /** The user the service runs as; null runs it as the unit's default (root for a system unit). */
  user: string | null;
}

export function renderApiUnit(input: ApiUnitInput): string {
  const exec = [input.node, input.bin].map(quote).join(' ');
  return [
    '# Installed by svc setup; deploy/svc.service documents each line.',
    '[Unit]',
    'Description=svc local inference gateway',
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    ...(input.user ? [`User=${input.user}`, `Group=${input.user}`] : []),
    'Environment=SVC_PORT=8080 SVC_HOST=0.0.0.0',
    `EnvironmentFile=-${input.paths.apiEnv}`,
    `ExecStart=${exec} serve --host \${SVC_HOST} --port \${SVC_PORT}`,
    `ExecReload=${exec} config reload`,
    'Restart=on-failure',
    'RestartSec=2',
    'RestartPreventExitStatus=4 5 7',
    'LimitNOFILE=65536',
    ...serviceUnitTail(`${input.paths.configRoot} ${input.paths.stateRoot}`),
  ].join('\n');
}
