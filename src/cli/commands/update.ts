// svc update: --check says which version runs and which one the channel offers; --channel
// switches the channel (persisted); without --check it applies the channel's newest version
// when it is newer (or --target VER; an older one needs --allow-downgrade), and --rollback
// switches back to the previous tree.
// Both are jobs on the gateway: this polls the job to its end, through the restart it causes
// (the API is unreachable for a moment then), and prints each state the job enters.
import type { UpdateCheckPayload, UpdateJob } from '../../protocol/updates.js';
import { ApiUnreachableError, type ApiClient } from '../client.js';
import { CliExit, EXIT, print, printJson } from '../output.js';

export interface UpdateOptions {
  check?: boolean;
  channel?: string;
  target?: string;
  rollback?: boolean;
  allowDowngrade?: boolean;
  json?: boolean;
}

const POLL_MS = 500;
/** How long the whole job may take, and how long the API may be away during its restart. */
const JOB_LIMIT_MS = 20 * 60_000;
const UNREACHABLE_LIMIT_MS = 180_000;

export async function updateCommand(client: ApiClient, options: UpdateOptions): Promise<void> {
  if (options.rollback) return follow(client, await client.rollbackUpdate(), options);
  if (options.channel) {
    const { channel } = await client.setUpdateChannel(options.channel);
    if (!options.json) print(`channel: ${channel}`);
  }
  const check = await client.updateCheck();
  if (!check.published && !options.check) throw new CliExit(EXIT.failed, `${noPackage(check)}: nothing to update to (svc ${check.current} runs)`);
  const target = options.target?.replace(/^v/, '');
  if (target && !check.versions.includes(target)) throw new CliExit(EXIT.failed, `the registry has no ${check.package}@${target}; it has ${check.versions.slice(0, 5).join(', ')}${check.versions.length > 5 ? ', …' : ''}`);
  const wanted = target ?? (check.update_available ? check.latest : null);
  if (options.check || wanted === null || wanted === check.current) {
    if (options.json) printJson(check);
    else {
      print(`svc ${check.current} (channel ${check.channel}, registry ${check.registry})`);
      print(offerLine(check));
      if (target === check.current) print(`${target} is the version that runs; nothing to do`);
    }
    // No package there: the check could not tell whether svc is up to date, which is no success.
    if (!check.published) throw new CliExit(EXIT.failed, `${noPackage(check)}: cannot tell whether an update exists (SVC_NPM_REGISTRY names the registry)`);
    return;
  }
  return follow(client, await client.applyUpdate(wanted, options.allowDowngrade === true), options);
}

/** What the channel offers, in one line. */
function offerLine(check: UpdateCheckPayload): string {
  if (!check.published) return `${noPackage(check)} (SVC_NPM_REGISTRY names the registry)`;
  if (check.latest === null) return `the registry has no version for the ${check.channel} channel yet`;
  return `${check.channel}: ${check.latest}${check.update_available ? ' — an update is available' : ' — up to date'}`;
}

const noPackage = (check: UpdateCheckPayload) => `the registry ${check.registry} has no ${check.package} package`;

/** Poll the job to its end; exit 0 when applied, 1 when it failed or rolled back. */
async function follow(client: ApiClient, started: UpdateJob, options: UpdateOptions): Promise<void> {
  const say = (line: string): void => {
    if (!options.json) print(line);
  };
  say(`${started.kind} ${started.from.version} -> ${started.to.version}: job ${started.id}`);
  let job = started;
  let shown = 0;
  let unreachableSince: number | null = null;
  const deadline = Date.now() + JOB_LIMIT_MS;
  while (job.state !== 'applied' && job.state !== 'failed' && job.state !== 'rolled_back') {
    if (Date.now() > deadline) throw new CliExit(EXIT.failed, `job ${job.id} did not end within ${JOB_LIMIT_MS / 60_000} minutes (last: ${job.state}); follow it with GET /api/updates/status/${job.id}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
    try {
      job = await client.updateJob(job.id);
      unreachableSince = null;
    } catch (error) {
      if (!(error instanceof ApiUnreachableError)) throw error;
      // The gateway restarts during the job: its API is away for a moment.
      unreachableSince ??= Date.now();
      if (Date.now() - unreachableSince > UNREACHABLE_LIMIT_MS) throw new CliExit(EXIT.unreachable, `${error.message}, for ${UNREACHABLE_LIMIT_MS / 1000} s during job ${job.id} (last: ${job.state}); its outcome will be in <state>/update-jobs/${job.id}.json`);
      continue;
    }
    for (const row of job.history.slice(Math.max(shown, 1))) say(`  ${row.state}: ${row.message}`);
    shown = job.history.length;
  }
  if (options.json) printJson(job);
  if (job.state === 'applied') return say(`svc ${job.to.version} runs (was ${job.from.version})`);
  throw new CliExit(EXIT.failed, job.state === 'rolled_back'
    ? `${job.to.version} was not healthy and svc switched back to ${job.from.version}: ${job.error?.message ?? job.message}`
    : `${job.kind} failed (${job.error?.code ?? 'unknown'}): ${job.error?.message ?? job.message}`);
}
