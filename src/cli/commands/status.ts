// svc status: the system and slot summary from GET /api/status.
import type { ApiClient } from '../client.js';
import { formatDuration, print, printJson, table } from '../output.js';

export async function statusCommand(client: ApiClient, options: { json?: boolean }): Promise<void> {
  const status = await client.status();
  if (options.json) return printJson(status);
  const { slots } = status;
  print(`svc ${status.version}, up ${formatDuration(status.uptime_s)} at ${client.baseUrl}${status.auth_enabled ? ' (auth mode)' : ''}`);
  print(`config  ${status.config_root} (${status.home_source})`);
  print(`state   ${status.state_root}`);
  const states = Object.entries(slots.by_state).map(([state, n]) => `${n} ${state}`).join(', ');
  print(`slots   ${slots.total} configured, ${slots.enabled} enabled${states ? `: ${states}` : ''}`);
  if (slots.slots.length > 0) {
    print();
    const rows = slots.slots.map((s) => [s.name, s.type, s.device, s.provider, String(s.port), s.state, s.pid === null ? '-' : String(s.pid), s.model || '-']);
    for (const line of table(['NAME', 'TYPE', 'DEVICE', 'PROVIDER', 'PORT', 'STATE', 'PID', 'MODEL'], rows)) print(line);
  }
  for (const warning of status.config_warnings) print(warning);
}
