// Editing tool policies: the page keeps the edits (tool → new policy) apart from the server's
// view, and turns them into the three lists PATCH /api/mcp/<id>/tools takes. Names the record
// lists that the server no longer offers are kept where they are: editing one tool never
// drops another's policy.
import type { McpToolView, ToolPolicy, ToolPolicyLists } from '../../../../src/protocol/mcp.js';

export type PolicyEdits = Readonly<Record<string, ToolPolicy>>;
export type PolicyLists = Pick<ToolPolicyLists, 'allow' | 'gated' | 'blocked'>;

/** `edits` without the entries that match the tool's policy now (a choice undone). */
export function effectiveEdits(tools: readonly McpToolView[], edits: PolicyEdits): PolicyEdits {
  const out: Record<string, ToolPolicy> = {};
  for (const tool of tools) {
    const next = edits[tool.name];
    if (next !== undefined && next !== tool.policy) out[tool.name] = next;
  }
  return out;
}

/** The record's lists with each edited tool moved to the list of its new policy. */
export function listsAfter(current: PolicyLists, edits: PolicyEdits): PolicyLists {
  const moved = new Set(Object.keys(edits));
  const keep = (names: readonly string[]) => names.filter((name) => !moved.has(name));
  const lists: PolicyLists = { allow: keep(current.allow), gated: keep(current.gated), blocked: keep(current.blocked) };
  for (const [name, policy] of Object.entries(edits)) lists[policy].push(name);
  return lists;
}

/** One line per change, for the confirmation: `echo: allow → gated`. */
export function policyChanges(tools: readonly McpToolView[], edits: PolicyEdits): string[] {
  return tools.filter((tool) => edits[tool.name] !== undefined).map((tool) => `${tool.name}: ${tool.policy} → ${edits[tool.name]}`);
}

export const POLICY_WORDS: Record<ToolPolicy, string> = {
  allow: 'runs when called',
  gated: 'waits for an approval',
  blocked: 'never offered, never called',
};
