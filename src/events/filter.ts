// Which events a reader wants: `type` globs and a `severity` choice, parsed from the strings
// a query carries. Parsing returns the problem instead of throwing so that the HTTP layer
// can name the parameter in its own error.
import { EVENT_SEVERITIES, EVENT_TYPES, type EventSeverity, type SvcEvent } from '../protocol/events.js';

export interface EventFilter {
  /** Absent: every type. */
  types?: RegExp;
  /** Absent: every severity. */
  severities?: ReadonlySet<EventSeverity>;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const PATTERN = /^[a-z0-9_.*-]+$/;

function globSource(pattern: string): string {
  return pattern.split('*').map((part) => part.replace(/[.\\^$+?()[\]{}|-]/g, '\\$&')).join('.*');
}

/**
 * `slot.*`, `*.state`, `activity,settings.*`: comma-separated globs where `*` matches any run
 * of characters, dots included. A glob that matches no known type is refused, so that a typo
 * is an error rather than a silent, empty stream.
 */
export function parseTypeFilter(value: string): Parsed<RegExp> {
  const patterns = value.split(',').map((p) => p.trim());
  for (const pattern of patterns) {
    if (!PATTERN.test(pattern)) return { ok: false, message: `expected comma-separated event types or globs such as slot.* ; got ${JSON.stringify(value)}` };
    const one = new RegExp(`^${globSource(pattern)}$`);
    if (!EVENT_TYPES.some((type) => one.test(type))) {
      return { ok: false, message: `${JSON.stringify(pattern)} matches no event type; known types: ${EVENT_TYPES.join(', ')}` };
    }
  }
  return { ok: true, value: new RegExp(`^(?:${patterns.map(globSource).join('|')})$`) };
}

/** One level is a minimum (`warn`: warn and error); a comma-separated list is exactly those levels. */
export function parseSeverityFilter(value: string): Parsed<ReadonlySet<EventSeverity>> {
  const levels = value.split(',').map((s) => s.trim());
  const unknown = levels.find((level) => !(EVENT_SEVERITIES as readonly string[]).includes(level));
  if (unknown !== undefined) return { ok: false, message: `expected info, warn or error (or a comma-separated list of them); got ${JSON.stringify(unknown)}` };
  const chosen = levels as EventSeverity[];
  if (chosen.length === 1) return { ok: true, value: new Set(EVENT_SEVERITIES.slice(EVENT_SEVERITIES.indexOf(chosen[0]!))) };
  return { ok: true, value: new Set(chosen) };
}

/** events.gap passes every filter: a reader must learn that it missed something, whatever it asked for. */
export function matches(filter: EventFilter, event: SvcEvent): boolean {
  if (event.type === 'events.gap') return true;
  if (filter.severities && !filter.severities.has(event.severity)) return false;
  return !filter.types || filter.types.test(event.type);
}
