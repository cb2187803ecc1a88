import { describe, expect, it } from 'vitest';
import type { McpToolView, ToolPolicy } from '../../../../src/protocol/mcp.js';
import { effectiveEdits, listsAfter, policyChanges } from './policy.js';

const tool = (name: string, policy: ToolPolicy): McpToolView => ({ name, description: '', input_schema: {}, policy, read_only: false, destructive: false });
const tools = [tool('echo', 'allow'), tool('add', 'gated'), tool('wipe', 'blocked')];

describe('tool policy edits', () => {
  it('drops an edit that puts a tool back where it was', () => {
    expect(effectiveEdits(tools, { echo: 'allow', add: 'blocked' })).toEqual({ add: 'blocked' });
  });

  it('moves each edited tool to its new list and keeps the rest, unknown names included', () => {
    const current = { allow: ['echo', 'gone'], gated: ['add'], blocked: ['wipe'] };
    expect(listsAfter(current, { echo: 'gated', wipe: 'allow' })).toEqual({ allow: ['gone', 'wipe'], gated: ['add', 'echo'], blocked: [] });
  });

  it('lists a tool that took the default policy once it is edited', () => {
    expect(listsAfter({ allow: [], gated: [], blocked: [] }, { echo: 'gated' })).toEqual({ allow: [], gated: ['echo'], blocked: [] });
  });

  it('says each change from → to', () => {
    expect(policyChanges(tools, { echo: 'gated' })).toEqual(['echo: allow → gated']);
  });
});
