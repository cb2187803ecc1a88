// The supervised states of a tool server and the moves between them (pure). Every move goes
// through this table (the supervisor's Lifecycle, lib/supervision), so a move it does not list
// is a bug that throws where it happens; staying in a state is not a move.
import { canMove, type TransitionTable } from '../lib/supervision/lifecycle.js';
import type { McpState } from '../protocol/mcp.js';

export const MCP_MOVES: TransitionTable<McpState> = {
  // disabled: enabled = false; enabling it makes it stopped (then started on demand or at boot).
  disabled: ['stopped'],
  stopped: ['starting', 'disabled'],
  // starting ends ready, or error (a spawn, handshake or connect failure), or stopping (asked to stop meanwhile).
  starting: ['ready', 'error', 'stopping', 'stopped'],
  // ready: a crash or a failed ping goes to starting (restart) or error (crash loop, remote down).
  ready: ['stopping', 'starting', 'error'],
  stopping: ['stopped', 'disabled'],
  // error: a restart (by hand, or the backoff for a remote) or a stop/disable.
  error: ['starting', 'stopped', 'disabled', 'stopping'],
};

export function moveAllowed(from: McpState, to: McpState): boolean {
  return canMove(MCP_MOVES, from, to);
}
