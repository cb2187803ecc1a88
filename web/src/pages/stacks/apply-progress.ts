// A stack apply's progress, folded from its stack.apply.* events (and from the apply's own
// answer, which carries the same results, in case the stream missed some): which phase it
// is in, which slots have converged, and how many are left.
import type { EventPayloads } from '../../../../src/protocol/events.js';
import type { StackApplyPayload, StackSlotResult } from '../../../../src/protocol/stacks.js';

export type ApplyPhase = 'idle' | 'started' | 'committed' | 'done' | 'failed';

export interface ApplyProgress {
  phase: ApplyPhase;
  /** Slots the apply will converge: those it names and those it unloads. */
  expected: string[];
  results: StackSlotResult[];
  /** Slots that failed to converge (the files stay the new set). */
  failed: string[];
  /** Why the whole apply was refused or failed. */
  code: string | null;
  /** How many of this apply's events arrived (the answer may come before the last of them). */
  events: number;
}

export const IDLE: ApplyProgress = { phase: 'idle', expected: [], results: [], failed: [], code: null, events: 0 };

type ApplyEvent = { [K in keyof EventPayloads]: K extends `stack.apply.${string}` ? { type: K; data: EventPayloads[K] } : never }[keyof EventPayloads];

const withResult = (results: StackSlotResult[], result: StackSlotResult) => [...results.filter((r) => r.slot !== result.slot), result];

/** The progress after one event; events of another stack leave it as it is. */
export function foldApplyEvent(progress: ApplyProgress, slug: string, event: { type: string; data: unknown }): ApplyProgress {
  const known = event as ApplyEvent;
  if (!known.type.startsWith('stack.apply.') || known.data.stack !== slug) return progress;
  const counted = { ...progress, events: progress.events + 1 };
  // The answer already said how it ended: a late event changes nothing but the count.
  if (progress.phase === 'done' || progress.phase === 'failed') return counted;
  return foldKnown(counted, known);
}

function foldKnown(progress: ApplyProgress, known: ApplyEvent): ApplyProgress {
  switch (known.type) {
    case 'stack.apply.started':
      return { ...progress, phase: 'started', expected: [...new Set([...known.data.unloads, ...known.data.slots])] };
    case 'stack.apply.committed':
      return { ...progress, phase: 'committed' };
    case 'stack.apply.slot': {
      const { stack: _stack, ...result } = known.data;
      return { ...progress, results: withResult(progress.results, result) };
    }
    case 'stack.apply.completed':
      return { ...progress, phase: 'done', failed: known.data.failed };
    case 'stack.apply.failed':
      return { ...progress, phase: 'failed', code: known.data.code };
  }
}

/** The apply's answer: every result it reports, and done. */
export function foldApplyAnswer(progress: ApplyProgress, answer: StackApplyPayload): ApplyProgress {
  const results = (answer.results ?? []).reduce(withResult, progress.results);
  const expected = progress.expected.length ? progress.expected : results.map((r) => r.slot);
  return { ...progress, phase: 'done', expected, results, failed: results.filter((r) => !r.ok).map((r) => r.slot) };
}

/** Converged slots out of those expected, 0..1 (1 once done, whatever the count). */
export function fractionDone(progress: ApplyProgress): number {
  if (progress.phase === 'done') return 1;
  if (progress.expected.length === 0) return 0;
  const finished = progress.results.filter((r) => progress.expected.includes(r.slot)).length;
  return Math.min(1, finished / progress.expected.length);
}
