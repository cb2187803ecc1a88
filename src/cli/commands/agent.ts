// svc agent approvals list|approve|deny: the queue of gated tool calls over
// /api/agent/approvals (docs/cli.md, "svc agent approvals"). The rest of `svc agent`
// (bundled agents) is not built yet.
import { type Command, Option } from 'commander';
import type { ApprovalEntry } from '../../protocol/mcp.js';
import type { ApiClient } from '../client.js';
import { print, printJson, table } from '../output.js';
import { registerHermesAgentCommands } from './agent-hermes.js';

type Json = { json?: boolean };

export function registerAgentCommands(program: Command, client: () => ApiClient): void {
  const agent = program.command('agent').description('agents: the approvals queue of gated tool calls (bundled agents are not built yet)');
  const approvals = agent.command('approvals').description('gated tool calls waiting for a decision');
  const json = () => new Option('--json', 'print JSON');
  approvals.command('list').description('list the pending calls').addOption(json()).action((o: Json) => approvalsList(client(), o));
  approvals.command('approve <id>').description('let a pending call run').addOption(json()).action((id: string, o: Json) => approvalsDecide(client(), 'approve', id, o));
  approvals.command('deny <id>').description('refuse a pending call (it fails with mcp.tool_failed)').addOption(json()).action((id: string, o: Json) => approvalsDecide(client(), 'deny', id, o));
  registerHermesAgentCommands(agent, client);
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
