// svc agent: the bundled agents (install|uninstall|list|status|log|upgrade in agent-lifecycle.ts,
// run in agent-run.ts; docs/agents.md) and approvals list|approve|deny, the queue of gated tool
// calls over /api/agent/approvals (docs/cli.md, "svc agent approvals").
import { type Command, Option } from 'commander';
import { resolvePaths } from '../../config/paths.js';
import type { ApprovalEntry } from '../../protocol/mcp.js';
import type { ApiClient } from '../client.js';
import { print, printJson, table } from '../output.js';
import { registerHermesAgentCommands } from './agent-hermes.js';

type Json = { json?: boolean };

export function registerAgentCommands(program: Command, client: () => ApiClient): void {
  const agent = program.command('agent').description('bundled agents (pi, hermes): install, run, upgrade, uninstall; the approvals queue of gated tool calls');
  registerLifecycle(agent, client);
  const approvals = agent.command('approvals').description('gated tool calls waiting for a decision');
  const json = () => new Option('--json', 'print JSON');
  approvals.command('list').description('list the pending calls').addOption(json()).action((o: Json) => approvalsList(client(), o));
  approvals.command('approve <id>').description('let a pending call run').addOption(json()).action((id: string, o: Json) => approvalsDecide(client(), 'approve', id, o));
  approvals.command('deny <id>').description('refuse a pending call (it fails with mcp.tool_failed)').addOption(json()).action((id: string, o: Json) => approvalsDecide(client(), 'deny', id, o));
  registerHermesAgentCommands(agent, client);
}

function registerLifecycle(agent: Command, client: () => ApiClient): void {
  const json = () => new Option('--json', 'print JSON');
  const life = () => import('./agent-lifecycle.js');
  agent.command('install <name>').description('install a bundled agent and wire it to this gateway (a job: each step is printed)')
    .option('--switch', 'daemon agents: replace the installed one (put back if this install fails)', false)
    .option('--version <version>', 'install this version instead of the pinned one')
    .option('--dry-run', 'say what would be done, write nothing', false)
    .option('--offline', 'use nothing from the network the install can do without', false)
    .option('--adopt', 'take over an install svc did not make', false)
    .option('--repair', 'redo the steps that are not done', false)
    .option('--skip-phase <phase>', 'skip a phase (repeatable)', (value: string, all: string[] = []) => [...all, value])
    .addOption(json())
    .action(async (name: string, o) => (await life()).agentInstall(client(), name, o));
  agent.command('uninstall <name>').description('remove what svc installed for the agent (its data stays unless --purge)')
    .option('--purge', 'remove its data (sessions) too', false)
    .option('--keep-memory', 'keep the agent\'s memory items (the default today: svc removes none)', false)
    .addOption(json())
    .action(async (name: string, o) => (await life()).agentUninstall(client(), name, o));
  agent.command('list').description('installed agents').addOption(json()).action(async (o: Json) => (await life()).agentList(client(), o));
  agent.command('status [name]').description('an agent\'s status, version, files and last job (all installed agents without a name)').addOption(json())
    .action(async (name: string | undefined, o: Json) => (await life()).agentStatus(client(), name, o));
  agent.command('log <name>').description('the agent\'s install log (or a phase\'s log)').option('--phase <phase>', 'the log of this provisioning phase').addOption(json())
    .action(async (name: string, o) => (await life()).agentLog(client(), name, o));
  agent.command('upgrade <name>').description('install another version (the pinned one without --to) and wire it again').option('--to <version>', 'the version to go to').addOption(json())
    .action(async (name: string, o) => (await life()).agentUpgrade(client(), name, o));
  agent.command('run <name> [args...]').description('run an installed cli agent with its wiring: svc agent run pi -- -p "hello"')
    .allowUnknownOption()
    .action(async (name: string, args: string[]) => (await import('./agent-run.js')).agentRun(resolvePaths(), name, args, gatewayIfAny(client)));
}

/** The client, or none when SVC_API_URL is malformed: a run needs no gateway. */
function gatewayIfAny(client: () => ApiClient): ApiClient | undefined {
  try {
    return client();
  } catch {
    return undefined;
  }
}

/** The arguments in one short line. */
function argsLine(args: Record<string, unknown>): string {
  const text = JSON.stringify(args);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export async function approvalsList(client: ApiClient, options: Json): Promise<void> {
  const result = await client.listApprovals();
  if (options.json) return printJson(result);
  if (result.approvals.length === 0) {
    print('no calls are waiting for approval');
    return;
  }
  const rows = result.approvals.map((a) => [a.id, a.tool, a.client_id, String(a.hit_count), a.enqueued_at, a.expires_at, argsLine(a.args)]);
  for (const line of table(['ID', 'TOOL', 'CLIENT', 'HITS', 'ENQUEUED', 'EXPIRES', 'ARGS'], rows)) print(line);
}

export async function approvalsDecide(client: ApiClient, decision: 'approve' | 'deny', id: string, options: Json): Promise<void> {
  const { approval } = decision === 'approve' ? await client.approve(id) : await client.deny(id);
  if (options.json) return printJson({ approval });
  print(describeDecision(approval));
}

function describeDecision(a: ApprovalEntry): string {
  return `${a.tool} (${a.id}): ${a.state}${a.decided_by ? ` by ${a.decided_by}` : ''}`;
}
