// svc agent install|uninstall|list|status|log|upgrade (docs/cli.md, docs/agents.md): the
// bundled agents over /api/agents. An install or upgrade is a job in the gateway; the CLI
// follows it (GET /api/agents/jobs/<id>) printing each step, and exits 1 when it fails.
// `run` is agent-run.ts.
import { join } from 'node:path';
import type { AgentJob, AgentListPayload, AgentLogPayload, AgentUninstallPayload, AgentView } from '../../protocol/agents.js';
import type { ErrorEnvelope } from '../../protocol/errors.js';
import type { ApiClient } from '../client.js';
import { CliExit, EXIT, print, printJson, table } from '../output.js';

type Json = { json?: boolean };
const agentPath = (name: string, rest = '') => `/api/agents/${encodeURIComponent(name)}${rest}`;
/** How often a running job is asked again (it takes seconds to minutes: npm). */
const POLL_MS = 500;

/** Follows a job to its end, printing each new step; throws (exit 1) when it failed. */
async function follow(client: ApiClient, started: AgentJob, o: Json): Promise<AgentJob> {
  let job = started;
  let shown = 0;
  for (;;) {
    if (!o.json) for (; shown < job.steps.length; shown++) print(`${job.steps[shown]!.step}: ${job.steps[shown]!.message}`);
    if (job.state !== 'running') break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    job = (await client.request<{ job: AgentJob }>('GET', `/api/agents/jobs/${encodeURIComponent(job.id)}`)).job;
  }
  if (o.json) printJson({ job });
  if (job.state === 'failed') throw new CliExit(EXIT.failed, `${job.error?.code}: ${job.error?.message}`);
  return job;
}

export async function agentInstall(client: ApiClient, name: string, o: Json & { switch?: boolean; version?: string; dryRun?: boolean; offline?: boolean; adopt?: boolean; repair?: boolean; skipPhase?: string[] }): Promise<void> {
  const body = { name, switch: o.switch ?? false, ...(o.version && { version: o.version }), dry_run: o.dryRun ?? false, offline: o.offline ?? false, adopt: o.adopt ?? false, repair: o.repair ?? false, skip_phases: o.skipPhase ?? [] };
  const { job } = await client.request<{ job: AgentJob }>('POST', '/api/agents/install', body, { timeoutMs: null });
  const done = await follow(client, job, o);
  if (o.json) return;
  const view = await client.request<AgentView>('GET', agentPath(name));
  print(`${name} ${done.version ?? ''} installed${done.replaced ? ` (replacing ${done.replaced})` : ''}`);
  if (view.kind === 'cli') {
    print(`run it: svc agent run ${name} -- <args>`);
    print(`or put its launcher on PATH: export PATH="${join(view.install_dir, 'bin')}:$PATH"  (then: ${name})`);
  }
}

export async function agentUpgrade(client: ApiClient, name: string, o: Json & { to?: string }): Promise<void> {
  const { job } = await client.request<{ job: AgentJob }>('POST', agentPath(name, '/upgrade'), o.to ? { to: o.to } : {}, { timeoutMs: null });
  const done = await follow(client, job, o);
  if (!o.json) print(`${name} is at ${done.version}`);
}

export async function agentUninstall(client: ApiClient, name: string, o: Json & { purge?: boolean }): Promise<void> {
  const result = await client.request<AgentUninstallPayload | ErrorEnvelope>('DELETE', agentPath(name, o.purge ? '?purge=true' : ''), undefined, { timeoutMs: null });
  if (o.json) printJson(result);
  // 207 agent.uninstall_incomplete is a 2xx with an error envelope: part was removed, not all.
  if ('error' in result) throw new CliExit(EXIT.failed, `${result.error.code}: ${result.error.message}`);
  if (o.json) return;
  if (result.status === 'not_installed') return print(`${name} is not installed`);
  print(`${name} uninstalled`);
  if (result.kept.length > 0) print(`kept (svc agent uninstall ${name} --purge removes it): ${result.kept.join(', ')}`);
}

export async function agentList(client: ApiClient, o: Json): Promise<void> {
  const result = await client.request<AgentListPayload>('GET', '/api/agents');
  if (o.json) return printJson(result);
  if (result.agents.length === 0) print(`no agent is installed; svc installs ${result.available.map((a) => a.name).join(', ')}`);
  else for (const line of table(['NAME', 'KIND', 'STATUS', 'VERSION', 'INSTALLED'], result.agents.map((a) => [a.name, a.kind, a.status, a.version ?? '-', a.installed_at ?? '-']))) print(line);
}

export async function agentStatus(client: ApiClient, name: string | undefined, o: Json): Promise<void> {
  const views = name ? [await client.request<AgentView>('GET', agentPath(name))] : (await client.request<AgentListPayload>('GET', '/api/agents')).agents;
  if (o.json) return printJson(name ? views[0] : { agents: views });
  if (views.length === 0) return print('no agent is installed');
  for (const v of views) {
    print(`${v.name} (${v.kind}): ${v.status}${v.version ? ` ${v.version}` : ''}`);
    print(`  files: ${v.install_dir}  data: ${v.data_dir}  config: ${v.config_path}`);
    if (v.job) print(`  last job: ${v.job.action} ${v.job.state}${v.job.error ? ` (${v.job.error.code})` : ''}`);
    for (const p of v.problems) print(`  problem: ${p}`);
  }
}

export async function agentLog(client: ApiClient, name: string, o: Json & { phase?: string }): Promise<void> {
  const result = await client.request<AgentLogPayload>('GET', agentPath(name, `/log${o.phase ? `?phase=${encodeURIComponent(o.phase)}` : ''}`));
  if (o.json) return printJson(result);
  process.stdout.write(result.text.endsWith('\n') || result.text === '' ? result.text : `${result.text}\n`);
}
