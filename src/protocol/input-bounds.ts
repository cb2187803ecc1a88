// Bounds on what hostile input can cost: how deep a JSON body may nest, and how much of a
// request an error answer may echo back. An error about 20,000 unknown keys names the first
// few and counts the rest; a 100 KB key name comes back as its first 200 characters. The one
// error envelope is built through boundedEnvelope (SvcError.toEnvelope), so each route is
// bounded without doing anything; docs/errors.md ("Bounded answers") says the same.

/** How deep a JSON request body may nest (objects and arrays); deeper is request.too_deep. */
export const MAX_JSON_DEPTH = 128;
/** Problems an error lists in details.problems; the rest are counted in details.problems_omitted. */
export const MAX_REPORTED_PROBLEMS = 20;
/** Characters of a value from the request an error repeats (a field path, an echoed value). */
export const MAX_ECHO_CHARS = 200;
/** Characters of one problem's message. */
const MAX_PROBLEM_CHARS = 1_000;
/** Characters of an error's message, and of any other string in its details. */
const MAX_MESSAGE_CHARS = 4_000;

/** The envelope's shape (protocol/errors.ts's ErrorEnvelope, which builds its envelopes here). */
interface Envelope {
  error: { code: string; message: string; details: Record<string, unknown> };
}

const CLIPPED = /\u2026 \(\d+ more characters\)$/;

/** `text` cut to `max` characters, saying how much was cut; text clipped already stays as it is. */
export function clip(text: string, max = MAX_ECHO_CHARS): string {
  if (text.length <= max) return text;
  const clipped = CLIPPED.exec(text);
  if (clipped && clipped.index <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** Problems as one message part: the first few joined with "; ", then how many more there are. */
export function listProblems<T>(problems: readonly T[], line: (problem: T) => string): string {
  const shown = problems.slice(0, MAX_REPORTED_PROBLEMS).map((p) => clip(line(p), MAX_PROBLEM_CHARS));
  const more = problems.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ');
}

/** A problem list for details: the first few, each field clipped, and the count of the rest. */
export function boundProblems(problems: readonly unknown[]): { problems: unknown[]; problems_omitted?: number } {
  const shown = problems.slice(0, MAX_REPORTED_PROBLEMS).map(boundProblem);
  const omitted = problems.length - shown.length;
  return omitted > 0 ? { problems: shown, problems_omitted: omitted } : { problems: shown };
}

function boundProblem(problem: unknown): unknown {
  if (typeof problem === 'string') return clip(problem, MAX_PROBLEM_CHARS);
  if (typeof problem !== 'object' || problem === null || Array.isArray(problem)) return problem;
  return Object.fromEntries(Object.entries(problem).map(([key, value]) => [key, typeof value === 'string' ? clip(value, key === 'message' ? MAX_PROBLEM_CHARS : MAX_ECHO_CHARS) : value]));
}

/** Strings anywhere in `value` clipped; containers past a few levels are not walked (details are shallow). */
function clipStrings(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return clip(value, MAX_MESSAGE_CHARS);
  if (typeof value !== 'object' || value === null || depth > 8) return value;
  if (Array.isArray(value)) return value.map((item) => clipStrings(item, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, clipStrings(item, depth + 1)]));
}

/**
 * An error envelope within bounds: its message and every string in its details clipped, and
 * details.problems cut to the first MAX_REPORTED_PROBLEMS (details.problems_omitted counts
 * the rest). An envelope within them keeps its content.
 */
export function boundedEnvelope<E extends Envelope>(envelope: E): E {
  const { code, message, details } = envelope.error;
  const bounded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details)) {
    if (key === 'problems_omitted' && Object.hasOwn(bounded, key)) continue; // the sum, set with the problems
    if (key !== 'problems' || !Array.isArray(value)) {
      bounded[key] = clipStrings(value);
      continue;
    }
    const { problems, problems_omitted } = boundProblems(value);
    bounded.problems = problems;
    if (problems_omitted !== undefined) bounded.problems_omitted = problems_omitted + (typeof details.problems_omitted === 'number' ? details.problems_omitted : 0);
  }
  return { error: { code, message: clip(message, MAX_MESSAGE_CHARS), details: bounded } } as E;
}

/** Why a NUL character is refused, as a field's problem. */
export const NUL_REFUSED = 'expected no NUL character (\\u0000): no store or program svc passes it to can hold one';

/** Whether a string, or any key or string inside a JSON value, holds a NUL character. */
export function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (typeof value !== 'object' || value === null || depth > MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) return value.some((item) => containsNul(item, depth + 1));
  return Object.entries(value).some(([key, item]) => key.includes('\u0000') || containsNul(item, depth + 1));
}
