// svc update: --check says which version runs and which one the channel offers; --channel
// switches the channel (persisted). Applying an update and rolling back are not built yet:
// for an available update it says how to install it by hand, and exits 1.
import type { ApiClient } from '../client.js';
import { CliExit, EXIT, print, printJson } from '../output.js';

export interface UpdateOptions {
  check?: boolean;
  channel?: string;
  target?: string;
  rollback?: boolean;
  json?: boolean;
}

const NOT_BUILT = 'applying updates (and rolling back) is not built yet in this version';

export async function updateCommand(client: ApiClient, options: UpdateOptions): Promise<void> {
  if (options.rollback) throw new CliExit(EXIT.usage, `svc update --rollback: ${NOT_BUILT} (README.md, "Not built yet")`);
  if (options.channel) {
    const { channel } = await client.setUpdateChannel(options.channel);
    if (!options.json) print(`channel: ${channel}`);
  }
  const check = await client.updateCheck();
  if (options.target && !check.versions.includes(options.target)) throw new CliExit(EXIT.failed, `the registry has no ${check.package}@${options.target}; it has ${check.versions.slice(0, 5).join(', ')}${check.versions.length > 5 ? ', …' : ''}`);
  if (options.json) printJson(check);
  else {
    print(`svc ${check.current} (channel ${check.channel}, registry ${check.registry})`);
    print(check.latest === null ? `the registry has no version for the ${check.channel} channel yet` : `${check.channel}: ${check.latest}${check.update_available ? ' — an update is available' : ' — up to date'}`);
  }
  const wanted = options.target ?? (check.update_available ? check.latest : null);
  if (options.check || wanted === null || wanted === check.current) return;
  throw new CliExit(EXIT.failed, `${NOT_BUILT}; install ${wanted} by hand: npm install -g ${check.package}@${wanted}, then restart svc`);
}
