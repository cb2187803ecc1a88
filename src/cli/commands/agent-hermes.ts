// svc agent bootstrap|reprovision (the hermes phase machine through the gateway), svc agent
// personas list|show|activate, svc agent peers (identity cards in memory); the phase
// log is `svc agent log <name> --phase P` (agent.ts). Exit 1 when a phase failed.
import { type Command, Option } from 'commander';
import type { ApiClient } from '../client.js';
import { CliExit, EXIT, print, printJson, table } from '../output.js';

type Json = { json?: boolean };
interface ProvisionFlags extends Json { repair?: boolean; adopt?: boolean; dryRun?: boolean; skipPhase?: string[]; offline?: boolean; verbose?: boolean }
interface PhaseRecord { status: string; reason?: string; details?: Record<string, unknown> }
interface ProvisionAnswer { ok: boolean; dry_run: boolean; provision_path: string; provision: { hermes_version: string | null; phases: Record<string, PhaseRecord> } }

const agentPath = (name: string, rest = '') => `/api/agents/${encodeURIComponent(name)}${rest}`;
const collect = (value: string, previous: string[] = []) => [...previous, value];

async function provision(client: ApiClient, name: string, o: ProvisionFlags): Promise<void> {
  const body = { repair: o.repair === true, adopt: o.adopt === true, dry_run: o.dryRun === true, offline: o.offline === true, skip_phases: o.skipPhase ?? [] };
  const answer = await client.request<ProvisionAnswer>('POST', agentPath(name, '/provision'), body, { timeoutMs: null });
  if (o.json) printJson(answer);
  else {
    const rows = Object.entries(answer.provision.phases).map(([phase, r]) => [phase, r.status, r.reason ?? '']);
    for (const line of table(['PHASE', 'STATUS', 'REASON'], rows)) print(line);
    if (o.verbose) for (const [phase, r] of Object.entries(answer.provision.phases)) if (r.details) print(`${phase}: ${JSON.stringify(r.details)}`);
    print(answer.dry_run ? 'dry run: nothing was written' : `${answer.ok ? 'provisioned' : 'failed'}: hermes ${answer.provision.hermes_version ?? '(no runtime)'}; ${answer.provision_path}`);
  }
  if (!answer.ok) throw new CliExit(EXIT.failed, `${name}: a phase failed (svc agent log ${name} --phase <phase> shows its log)`);
}

/** `--verbose` after the command is taken by the program's own --verbose (commander reads global options anywhere): it means this one's too. */
const withGlobalVerbose = (o: ProvisionFlags, command: Command): ProvisionFlags => ({ ...o, verbose: o.verbose === true || command.optsWithGlobals<{ verbose?: boolean }>().verbose === true });

export function registerHermesAgentCommands(agent: Command, client: () => ApiClient): void {
  const json = () => new Option('--json', 'print JSON');
  const flags = (command: Command, bootstrap: boolean) => {
    command.option('--repair', 'rerun every phase, rewriting what drifted', false).option('-v, --verbose', "print each phase's details", false).addOption(json());
    if (bootstrap) {
      command.option('--adopt', 'take over an existing hermes home svc did not make', false)
        .option('--dry-run', 'run the phases without writing anything', false)
        .option('--skip-phase <phase>', 'skip a phase (repeatable)', collect)
        .option('--offline', "never reach Python's package index", false);
    }
    return command;
  };
  flags(agent.command('bootstrap <name>').description('run the hermes phase machine (16 phases; exit 1 if one failed)'), true)
    .action((name: string, o: ProvisionFlags, command: Command) => provision(client(), name, withGlobalVerbose(o, command)));
  flags(agent.command('reprovision [name]').description('run the phases again (default hermes)'), false)
    .action((name: string | undefined, o: ProvisionFlags, command: Command) => provision(client(), name ?? 'hermes', withGlobalVerbose(o, command)));

  const personas = agent.command('personas').description("a daemon agent's personas (hermes)");
  personas.command('list').option('--agent <name>', 'the agent', 'hermes').addOption(json()).description('list personas; * marks the active one')
    .action(async (o: Json & { agent: string }) => {
      const answer = await client().request<{ personas: Array<{ id: string; display_name: string; summary: string; active: boolean }> }>('GET', agentPath(o.agent, '/personas'));
      if (o.json) return printJson(answer);
      for (const line of table(['', 'ID', 'NAME', 'SUMMARY'], answer.personas.map((p) => [p.active ? '*' : '', p.id, p.display_name, p.summary]))) print(line);
    });
  personas.command('show <id>').option('--agent <name>', 'the agent', 'hermes').addOption(json()).description('every field of one persona')
    .action(async (id: string, o: Json & { agent: string }) => printJson(await client().request('GET', agentPath(o.agent, `/personas/${encodeURIComponent(id)}`))));
  personas.command('activate <id>').option('--agent <name>', 'the agent', 'hermes').option('--reload-url <url>', 'where the reload nudge goes (default http://127.0.0.1:8765/api/ws)').addOption(json())
    .description('make a persona the active one and nudge the agent to reload')
    .action(async (id: string, o: Json & { agent: string; reloadUrl?: string }) => {
      const answer = await client().request<{ persona_id: string; active_path: string; hot_reload: { ok: boolean; error: string | null; url: string } }>(
        'POST', agentPath(o.agent, `/personas/${encodeURIComponent(id)}/activate`), o.reloadUrl ? { reload_url: o.reloadUrl } : {});
      if (o.json) return printJson(answer);
      print(`active: ${answer.persona_id} (${answer.active_path})`);
      print(answer.hot_reload.ok ? `reloaded: ${answer.hot_reload.url}` : `reload nudge failed (${answer.hot_reload.error}); the agent picks it up on its next start`);
    });

  agent.command('peers').description('agents registered in memory (identity cards)').addOption(json()).action(async (o: Json) => {
    const answer = await client().request<{ items: Array<{ metadata: Record<string, unknown>; timestamp: string }> }>('POST', '/api/memory/search',
      { query: 'agent identity', tags: ['agent-identity'], dataset: 'agents', limit: 50 }, { timeoutMs: null });
    if (o.json) return printJson(answer);
    const cell = (v: unknown) => (Array.isArray(v) ? v.join(',') : v === undefined || v === null ? '-' : String(v));
    const rows = answer.items.map((i) => [cell(i.metadata.agent_id), cell(i.metadata.display), cell(i.metadata.roles), cell(i.metadata.endpoint), cell(i.metadata.registered_at ?? i.timestamp)]);
    if (rows.length === 0) return print('no agent has registered (svc agent bootstrap hermes registers hermes)');
    for (const line of table(['Agent ID', 'Display', 'Roles', 'Endpoint', 'Registered'], rows)) print(line);
  });
}

