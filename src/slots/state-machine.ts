// The slot state machine (DESIGN.md, "Slot lifecycle"). One table of legal moves; anything
// else is a bug and throws slot.illegal_transition. A slot's SlotRuntime is its only writer.
//
//   stopped ──start──▶ starting ──answers──▶ warming ──healthy──▶ ready
//      ▲                  │  │                  │                   │
//      │                  │  └──────healthy─────┼───────────────────┤
//      │               exit/deadline        exit/deadline         crash
//      │                  ▼                     ▼                   ▼
//      └──stopped── stopping ◀──stop── (any live state)          error ──restart──▶ starting
//
// A gateway restart adopts a running engine: stopped ─adopt─▶ ready.
import { canMove, type TransitionTable } from '../lib/supervision/lifecycle.js';
import { SlotError } from '../protocol/errors.js';

export const SLOT_STATES = ['stopped', 'starting', 'warming', 'ready', 'stopping', 'error'] as const;
export type SlotState = (typeof SLOT_STATES)[number];

export const SLOT_MOVES: TransitionTable<SlotState> = {
  stopped: ['starting', 'ready'],
  starting: ['warming', 'ready', 'error', 'stopping'],
  warming: ['ready', 'error', 'stopping'],
  ready: ['stopping', 'error'],
  stopping: ['stopped', 'error'],
  error: ['starting', 'stopping', 'stopped'],
};

/** One move of a slot's state machine, as events and the activity log see it. */
export interface Transition {
  slot: string;
  from: SlotState;
  to: SlotState;
  reason: string;
  details?: Record<string, unknown>;
}

export function canTransition(from: SlotState, to: SlotState): boolean {
  return canMove(SLOT_MOVES, from, to);
}

/** What an illegal move of a slot throws (the runtime's Lifecycle throws it). */
export function illegalTransition(slot: string, from: SlotState, to: SlotState): SlotError {
  return new SlotError('slot.illegal_transition', `slot ${slot} cannot move from ${from} to ${to}`, { slot, from, to });
}

export function assertTransition(slot: string, from: SlotState, to: SlotState): void {
  if (!canTransition(from, to)) throw illegalTransition(slot, from, to);
}

/** States in which an engine process exists (or may): they count towards max_slots. */
export function isLive(state: SlotState): boolean {
  return state === 'starting' || state === 'warming' || state === 'ready' || state === 'stopping';
}
