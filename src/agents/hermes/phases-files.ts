// The phases that write the agent's home: the svc skill, the persona seeds, config.yaml (the
// model endpoint and the tool servers), the MCP wiring, the context note and the secrets
// file. Each goes through ctx.writeSet, so a rerun with nothing changed writes nothing.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { personaToml, SEED_PERSONAS } from '../persona-seeds.js';
import { activePath, personasDir } from '../personas.js';
import { type PhaseContext, type PlannedFile, sha256 } from './phase-context.js';
import type { PhaseOutcome } from './types.js';

export const AGENT_HEADER = { 'X-Svc-Agent': 'hermes' };
const BANNER = '# Written by svc (svc agent bootstrap hermes); rewritten by every provision: change svc, not this file.\n';

const skill = (ctx: PhaseContext) => `---
name: svc
description: Use the svc gateway this agent runs on: its models, slots, memory and tool servers.
---
# svc

You run on an svc gateway at ${ctx.deps.wiring.apiUrl} (OpenAI-compatible API at ${ctx.deps.wiring.v1Url}).
- Its tool servers are wired as MCP servers (svc-admin; svc-memory when memory is on): prefer them.
- On the host, the \`svc\` CLI does the same: \`svc status\`, \`svc slot list\`, \`svc model list\`,
  \`svc memory search <text>\`, \`svc agent personas list\`.
- Changes to the host (slots, models, config) go through the approvals queue: ask first.
`;

export async function installArtifacts(ctx: PhaseContext): Promise<PhaseOutcome> {
  return ctx.writeSet([{ path: join(ctx.home, 'skills', 'svc', 'SKILL.md'), content: skill(ctx) }]);
}

export async function personaSeed(ctx: PhaseContext): Promise<PhaseOutcome> {
  const dir = personasDir(ctx.home);
  const planned = SEED_PERSONAS.map((p) => ({ path: join(dir, `${p.id}.toml`), content: personaToml(p) }));
  const missing: PlannedFile[] = [];
  const kept: PlannedFile[] = [];
  for (const file of planned) ((await readFile(file.path, 'utf8').then(() => true, () => false)) ? kept : missing).push(file);
  if (!(await readFile(activePath(ctx.home), 'utf8').then(() => true, () => false))) missing.push({ path: activePath(ctx.home), content: 'hermes\n' });
  const hash = sha256(planned.map((f) => f.content).join('\0'));
  if (missing.length === 0) return { status: 'skip', reason: 'every seed is in place (edited ones are kept)', hash, details: { kept: kept.map((f) => f.path) } };
  const outcome = await ctx.writeSet(missing, { kept: kept.map((f) => f.path) });
  return { ...outcome, hash };
}

/** The tool servers config.yaml names: those the last mcp_wire wired, or this gateway's now. */
async function wiredServers(ctx: PhaseContext): Promise<Record<string, string>> {
  const before = ctx.previousOf('mcp_wire')?.details?.servers;
  if (before && typeof before === 'object') return before as Record<string, string>;
  return ctx.deps.mcpServers();
}

const bearer = (ctx: PhaseContext) => (ctx.deps.wiring.token ? { Authorization: 'Bearer ${SVC_TOKEN}' } : {});

export async function configWrite(ctx: PhaseContext): Promise<PhaseOutcome> {
  const servers = await wiredServers(ctx);
  const model = ctx.previousOf('model_automap')?.details?.model ?? ctx.deps.wiring.chatModels[0] ?? null;
  const config = {
    model: { provider: 'custom', base_url: ctx.deps.wiring.v1Url, default: model, api_key_env: 'OPENAI_API_KEY', headers: AGENT_HEADER },
    mcp_servers: Object.fromEntries(Object.entries(servers).map(([name, url]) => [name, { url, headers: { ...AGENT_HEADER, ...bearer(ctx) } }])),
    memory: { provider: 'svc', endpoint: `${ctx.deps.wiring.apiUrl}/api/memory` },
  };
  const outcome = await ctx.writeSet([{ path: join(ctx.home, 'config.yaml'), content: `${BANNER}${stringify(config)}` }], { model, servers: Object.keys(servers) });
  if (ctx.options.dryRun) return outcome;
  const check = await ctx.run(['config', 'check']);
  if (check.code !== 0) return { ...outcome, status: 'fail', reason: `hermes config check failed (exit ${check.code}): ${check.stderr.trim().split('\n').slice(-3).join(' ') || check.stdout.trim()}` };
  return outcome;
}

export async function mcpWire(ctx: PhaseContext): Promise<PhaseOutcome> {
  const servers = await ctx.deps.mcpServers();
  if (Object.keys(servers).length === 0) return { status: 'skip', reason: 'this gateway serves no tool server over HTTP', details: { servers } };
  const auth = ctx.deps.wiring.token ? { kind: 'bearer-from-env', env: 'SVC_TOKEN' } : { kind: 'none' };
  const file = {
    mcpServers: Object.fromEntries(Object.entries(servers).map(([name, url]) => [name, { type: 'streamable-http', url, headers: AGENT_HEADER, auth }])),
  };
  return ctx.writeSet([{ path: join(ctx.home, 'mcp.json'), content: `${JSON.stringify(file, null, 2)}\n` }], { servers });
}

export async function contextLink(ctx: PhaseContext): Promise<PhaseOutcome> {
  const { wiring } = ctx.deps;
  const text = [
    '# The gateway this agent runs on', '',
    `- API: ${wiring.apiUrl} (svc ${wiring.svcVersion})`, `- OpenAI-compatible: ${wiring.v1Url}`,
    `- Chat models: ${wiring.chatModels.join(', ') || 'none yet'}`,
    `- Requests carry X-Svc-Agent: hermes, so the activity log attributes them to this agent.`, '',
  ].join('\n');
  return ctx.writeSet([{ path: join(ctx.home, 'context', 'svc.md'), content: text }]);
}

export async function gatewaySecretsWire(ctx: PhaseContext): Promise<PhaseOutcome> {
  const { wiring } = ctx.deps;
  const lines = [
    '# Written by svc; 0600. The token (auth mode) has the inference scope only.',
    `OPENAI_BASE_URL=${wiring.v1Url}`, `OPENAI_API_KEY=${wiring.token ?? 'svc-local-no-auth'}`, 'SVC_AGENT=hermes',
    ...(wiring.token ? [`SVC_TOKEN=${wiring.token}`] : []), '',
  ];
  const envFile = join(ctx.home, '.env');
  const outcome = await ctx.writeSet([{ path: envFile, content: lines.join('\n'), mode: 0o600 }], { token: wiring.token ? 'stored' : 'none (auth is off)' });
  if (ctx.options.dryRun) return outcome;
  const check = await ctx.run(['gateway', 'env-check', '--env-file', envFile]);
  if (check.code !== 0) return { ...outcome, status: 'fail', reason: `hermes gateway env-check failed (exit ${check.code}): ${check.stderr.trim().split('\n').slice(-3).join(' ')}` };
  return outcome;
}
