// svc agent run <name> [-- args] (docs/agents.md): runs an installed cli agent with the
// run.json its install wrote, as is. The run needs no gateway; when the gateway answers, the
// CLI also asks it how the agent's /v1 requests of this run went. An agent such as `pi -p`
// prints nothing and exits 0 when every request fails (a prompt that does not fit the slot),
// so the gateway's record is the one that knows: each request an agent makes is an activity
// row of its own, with the gateway's error when it failed (server/agent-attribution.ts). The
// rows newer than the newest one before the run are this run's; when the last of them failed,
// the CLI prints that error and exits 1 (or the agent's own code, when that is not 0).
// Another run of the same agent at the same time would mix its rows in: one per agent at a
// time is the case this reads right.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { agentDirs, agentRunSpecPath } from '../../config/agent-paths.js';
import type { SvcPaths } from '../../config/paths.js';
import type { AgentActivityEvent, AgentActivityPayload, AgentRunSpec } from '../../protocol/agents.js';
import type { ApiClient } from '../client.js';
import { CliExit, EXIT } from '../output.js';

/** Rows read back after the run: more /v1 requests than this in one run are not looked at. */
const ROWS_READ = 500;
/** The activity lookups are a courtesy: a gateway that does not answer soon is not waited for. */
const LOOKUP_TIMEOUT_MS = 5000;

const isRequest = (event: AgentActivityEvent) => event.tool.startsWith('POST /v1/');

async function activity(client: ApiClient, name: string, limit: number): Promise<AgentActivityEvent[] | null> {
  try {
    const page = await client.request<AgentActivityPayload>('GET', `/api/agents/${encodeURIComponent(name)}/activity?limit=${limit}`, undefined, { timeoutMs: LOOKUP_TIMEOUT_MS });
    return page.events;
  } catch {
    return null;
  }
}

/** The run's /v1 requests (oldest first) once it ended, or null when the gateway cannot say. */
async function watchRequests(client: ApiClient | undefined, name: string): Promise<(() => Promise<AgentActivityEvent[] | null>) | null> {
  if (!client) return null;
  const before = await activity(client, name, 1);
  if (before === null) return null;
  const after = before[0]?.id ?? 0;
  return async () => (await activity(client, name, ROWS_READ))?.filter((e) => e.id > after && isRequest(e)).reverse() ?? null;
}

/** What the CLI says of a run whose last request failed; null when it did not. */
export function runFailure(name: string, requests: readonly AgentActivityEvent[]): string | null {
  const last = requests[requests.length - 1];
  if (!last || last.outcome !== 'error') return null;
  const failed = requests.filter((r) => r.outcome === 'error').length;
  const why = last.error ? `${last.error.code}: ${last.error.message}` : 'no reason recorded';
  return `svc: ${name}'s last request to the gateway (${last.tool}) failed: ${why} (${failed} of ${requests.length} request${requests.length === 1 ? '' : 's'} of this run failed)`;
}

/** Runs an installed cli agent with its wiring; the exit code is its own, or 1 when its last request failed. */
export async function agentRun(paths: SvcPaths, name: string, args: string[], client?: ApiClient): Promise<void> {
  let dirs;
  try {
    dirs = agentDirs(paths, name);
  } catch {
    throw new CliExit(EXIT.usage, `agent.invalid_name: ${JSON.stringify(name)} is not an agent name`);
  }
  let spec: AgentRunSpec;
  try {
    spec = JSON.parse(await readFile(agentRunSpecPath(dirs), 'utf8')) as AgentRunSpec;
  } catch {
    throw new CliExit(EXIT.failed, `agent.not_installed: ${name} is not installed as a cli agent here (${agentRunSpecPath(dirs)} is missing): svc agent install ${name}`);
  }
  const requests = await watchRequests(client, name);
  const child = spawn(spec.command, [...spec.args, ...args], { stdio: 'inherit', env: { ...process.env, ...spec.env } });
  const code = await new Promise<number>((resolve) => {
    child.once('error', (error) => {
      process.stderr.write(`svc: cannot run ${name}: ${error.message}\n`);
      resolve(EXIT.failed);
    });
    child.once('close', (exit, signal) => resolve(exit ?? (signal ? 128 : EXIT.failed)));
  });
  const made = requests ? await requests() : null;
  const failure = made ? runFailure(name, made) : null;
  if (failure) process.stderr.write(`${failure}\n`);
  process.exitCode = failure && code === EXIT.ok ? EXIT.failed : code;
}
