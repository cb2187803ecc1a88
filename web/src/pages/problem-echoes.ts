// The Overview's latest warnings and errors, each once. A failure that has an event of its
// own (pull.failed, a slot turning error) also leaves an activity row, and every activity
// row with outcome error is a `warn` event too: listed as they come, each pull failure read
// twice. The activity event is dropped when an event of another type names the same subject
// (the model, the slot) within a few seconds. Pure.
import type { SvcEvent } from '../../../src/protocol/events.js';

/** Apart by more than this, two events are two happenings. */
const SAME_HAPPENING_MS = 5_000;

/** What an event is about: the model, slot or target its data names. */
function subjectOf(event: SvcEvent): string | null {
  const data = event.data as Record<string, unknown>;
  for (const key of event.type === 'activity' ? ['target'] : ['model_id', 'slot', 'model', 'target']) {
    if (typeof data[key] === 'string' && data[key] !== '') return data[key];
  }
  return null;
}

export function withoutEchoes(events: readonly SvcEvent[]): SvcEvent[] {
  const others = events.filter((e) => e.type !== 'activity');
  return events.filter((event) => {
    if (event.type !== 'activity') return true;
    const subject = subjectOf(event);
    if (subject === null) return true;
    const at = Date.parse(event.ts);
    return !others.some((other) => subjectOf(other) === subject && Math.abs(Date.parse(other.ts) - at) <= SAME_HAPPENING_MS);
  });
}
