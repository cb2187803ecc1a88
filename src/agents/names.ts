// The bundled agents svc knows (pi and hermes; docs/agents.md) and the rule every agent name follows. The
// name becomes a directory under <state>/agents and <config>/agents, so the pattern is also
// the traversal guard: no dots, no slashes.
export const AGENT_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** `cli`: run on demand by the user (`svc agent run`); `daemon`: a supervised service (one at a time). */
export type AgentKind = 'cli' | 'daemon';

export const BUNDLED_AGENTS: Readonly<Record<string, AgentKind>> = { hermes: 'daemon', pi: 'cli' };

export function isAgentName(name: string): boolean {
  return AGENT_NAME_PATTERN.test(name);
}
