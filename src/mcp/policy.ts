// Tool policy (pure): what svc does with a call to a tool, from its server's `[tools]` lists,
// and whether a caller's token scope may use it (read tools need read, the rest write).
import { scopeGrants } from '../protocol/access.js';
import type { TokenScope } from '../protocol/vocabulary.js';
import type { ToolPolicy, ToolPolicyLists } from '../protocol/mcp.js';

export const DEFAULT_TOOL_POLICY: ToolPolicyLists = { allow: [], gated: [], blocked: [], default: 'allow' };

/** blocked beats gated beats allow; an unlisted tool gets the default. */
export function policyOf(tool: string, lists: ToolPolicyLists): ToolPolicy {
  if (lists.blocked.includes(tool)) return 'blocked';
  if (lists.gated.includes(tool)) return 'gated';
  if (lists.allow.includes(tool)) return 'allow';
  return lists.default;
}

/** The entries the three lists share, as `[list, index, name]` of the later list's entry. */
export function policyOverlaps(lists: ToolPolicyLists): Array<{ list: 'allow' | 'gated' | 'blocked'; index: number; name: string; other: string }> {
  const seen = new Map<string, string>();
  const overlaps: Array<{ list: 'allow' | 'gated' | 'blocked'; index: number; name: string; other: string }> = [];
  for (const list of ['allow', 'gated', 'blocked'] as const) {
    lists[list].forEach((name, index) => {
      const first = seen.get(name);
      if (first !== undefined && first !== list) overlaps.push({ list, index, name, other: first });
      else seen.set(name, list);
    });
  }
  return overlaps;
}

/** In default mode (null scope) everything is allowed; otherwise read tools need read, others write. */
export function scopeAllows(scope: TokenScope | null, readOnly: boolean): boolean {
  if (scope === null) return true;
  return scopeGrants(scope, readOnly ? 'read' : 'write');
}

/** `<server>__<tool>`, and back: ids may contain "_", so the split tries the known ids. */
export const qualifiedName = (server: string, tool: string) => `${server}__${tool}`;

export function splitQualified(name: string, servers: Iterable<string>): { server: string; tool: string } | undefined {
  // Longest server id first, so "a__b" as an id wins over "a" when both exist.
  const ids = [...servers].sort((a, b) => b.length - a.length);
  for (const id of ids) if (name.startsWith(`${id}__`) && name.length > id.length + 2) return { server: id, tool: name.slice(id.length + 2) };
  return undefined;
}
