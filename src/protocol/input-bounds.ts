// Bounds on what hostile input can cost: how deep a JSON body may nest, and how much of a
// request an answer may echo back.

/** How deep a JSON request body may nest (objects and arrays); deeper is request.too_deep. */
export const MAX_JSON_DEPTH = 128;
/** Characters of a value from the request an error repeats (a field path, an echoed value). */
export const MAX_ECHO_CHARS = 200;

const CLIPPED = /\u2026 \(\d+ more characters\)$/;

/** `text` cut to `max` characters, saying how much was cut; text clipped already stays as it is. */
export function clip(text: string, max = MAX_ECHO_CHARS): string {
  if (text.length <= max) return text;
  const clipped = CLIPPED.exec(text);
  if (clipped && clipped.index <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
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
