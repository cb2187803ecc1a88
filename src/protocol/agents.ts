// The agents REST surface (docs/api.md "Agents", docs/agents.md): the request
// bodies as zod schemas the routes validate with, and the wire types of the answers, which the
// CLI and the dashboard read.
import { z } from 'zod';

export const AGENT_KINDS = ['cli', 'daemon'] as const;
export type AgentKindWire = (typeof AGENT_KINDS)[number];

/** A version as npm or a runtime spells it: digits, letters, ".", "-", "+" (never a path or a flag). */
export const AGENT_VERSION_PATTERN = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;
const version = () => z.string().regex(AGENT_VERSION_PATTERN, { message: 'expected a version such as 0.73.1' });

/** POST /api/agents/install. `name` is checked by the route first (agent.name_required, agent.invalid_name). */
export const AgentInstallRequestSchema = z.strictObject({
  name: z.string(),
  /** Daemon agents: uninstall the one installed first, and put it back if this install fails. */
  switch: z.boolean().default(false),
  version: version().optional(),
  offline: z.boolean().default(false),
  adopt: z.boolean().default(false),
  dry_run: z.boolean().default(false),
  repair: z.boolean().default(false),
  skip_phases: z.array(z.string().min(1).max(64)).max(32).default([]),
});
export type AgentInstallRequest = z.output<typeof AgentInstallRequestSchema>;

/** POST /api/agents/<name>/upgrade. */
export const AgentUpgradeRequestSchema = z.strictObject({ to: version().optional() });

export type AgentJobAction = 'install' | 'switch' | 'upgrade';
export type AgentJobState = 'running' | 'done' | 'failed';

/** An install, switch or upgrade: it runs in the gateway; progress is on /api/events/stream (agent.*). */
export interface AgentJob {
  id: string;
  agent: string;
  action: AgentJobAction;
  state: AgentJobState;
  started_at: string;
  finished_at: string | null;
  /** The version installed once done. */
  version: string | null;
  /** Each step the driver reported, in order. */
  steps: Array<{ step: string; message: string; at: string }>;
  error: { code: string; message: string; details: Record<string, unknown> } | null;
  /** A switch: the daemon agent it replaced (and put back when it failed). */
  replaced: string | null;
}

export type AgentStatus = 'installed' | 'broken' | 'not_installed';

/** One agent in GET /api/agents and GET /api/agents/<name>. */
export interface AgentView {
  name: string;
  kind: AgentKindWire;
  status: AgentStatus;
  installed_at: string | null;
  version: string | null;
  version_pin: boolean;
  data_dir: string;
  install_dir: string;
  config_path: string;
  /** Daemons: whether the unit runs (null: not known, or a cli agent). */
  unit_active: boolean | null;
  /** The running or last job of this agent (this gateway's lifetime). */
  job: AgentJob | null;
  /** Why the agent is broken (its file, its install). */
  problems: string[];
}

export interface AgentListPayload {
  agents: AgentView[];
  count: number;
  /** Agents svc can install (the bundled agents, whose drivers this gateway has). */
  available: Array<{ name: string; kind: AgentKindWire }>;
}

export interface AgentUninstallPayload {
  name: string;
  status: 'uninstalled' | 'not_installed';
  removed: string[];
  kept: string[];
  /** How many of its agent-<name> bearer tokens were revoked (an uninstalled agent keeps no access). */
  tokens_revoked?: number;
}

/** One row of GET /api/agents/<name>/activity: a /v1 request or a tool call the agent made. */
export interface AgentActivityEvent {
  id: number;
  timestamp: string;
  /** `<server>__<tool>` for a tool call; `POST /v1/chat/completions` for a /v1 request. */
  tool: string;
  args: Record<string, unknown>;
  gated: boolean;
  outcome: string;
  client_id: string;
  /** Why it failed: the gateway's error (a /v1 request's answer, a tool call's error); null when it did not. */
  error: { code: string; message: string } | null;
}

export interface AgentActivityPayload {
  agent: string;
  events: AgentActivityEvent[];
  count: number;
  hint?: string;
}

export interface AgentLogPayload {
  agent: string;
  phase: string | null;
  path: string;
  text: string;
}

/**
 * What `svc agent run <name>` executes, written by a cli agent's driver at install
 * (<state>/agents/<name>/run.json): the CLI runs it as is, with the environment added.
 */
export interface AgentRunSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The activity row's actor of a request an agent made (X-Svc-Agent). */
export const agentActor = (name: string) => `agent:${name}`;
