// The tool server state table (pure).
import { describe, expect, it } from 'vitest';
import { MCP_STATES } from '../protocol/mcp.js';
import { MCP_MOVES, moveAllowed } from './state-machine.js';

describe('MCP_MOVES', () => {
  it('has a row for every state, naming only states', () => {
    expect(Object.keys(MCP_MOVES).sort()).toEqual([...MCP_STATES].sort());
    for (const targets of Object.values(MCP_MOVES)) for (const t of targets) expect(MCP_STATES).toContain(t);
  });

  it('allows the lifecycle and refuses shortcuts', () => {
    const path = ['disabled', 'stopped', 'starting', 'ready', 'error', 'starting', 'ready', 'stopping', 'stopped'] as const;
    for (let i = 1; i < path.length; i++) expect(moveAllowed(path[i - 1]!, path[i]!)).toBe(true);
    expect(moveAllowed('disabled', 'ready')).toBe(false);
    expect(moveAllowed('stopped', 'ready')).toBe(false);
    expect(moveAllowed('stopping', 'starting')).toBe(false);
    for (const state of MCP_STATES) expect(moveAllowed(state, state)).toBe(false); // staying is not a move
  });
});
