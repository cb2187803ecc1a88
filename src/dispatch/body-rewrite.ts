// A request body with only its top-level "model" value replaced, spliced into the bytes the
// client sent instead of serialising the parsed object again (DESIGN.md, "Request hot
// path": parse once, forward the bytes you parsed from). The splice is made only where it is
// certain to change exactly what JSON.parse read as the top-level model; anywhere else the
// caller serialises the parsed body as before.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const KEY = Buffer.from('"model"');

const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/**
 * `raw` (a JSON object's bytes, already parsed successfully) with the value of its top-level
 * "model" key replaced by `model`; null when that cannot be done with certainty: the key
 * written more than once anywhere (JSON.parse keeps the last of duplicates; a nested "model"
 * makes the scan ambiguous), written with escapes, or its value not a plain string.
 */
export function withModel(raw: Buffer, model: string): Buffer | null {
  let keyAt = -1;
  for (let at = raw.indexOf(KEY); at >= 0; at = raw.indexOf(KEY, at + KEY.length)) {
    // A key, not text inside a string: the quote follows `{` or `,` and a `:` follows the key.
    // (Inside a string every quote is escaped, so it follows a backslash.)
    let before = at - 1;
    while (isSpace(raw[before])) before--;
    if (raw[before] !== OPEN_BRACE && raw[before] !== COMMA) continue;
    if (keyAt >= 0) return null; // twice: nested, or a duplicate
    keyAt = at;
  }
  if (keyAt < 0 || depthAt(raw, keyAt) !== 1) return null;
  let colon = keyAt + KEY.length;
  while (isSpace(raw[colon])) colon++;
  if (raw[colon] !== COLON) return null;
  let start = colon + 1;
  while (isSpace(raw[start])) start++;
  if (raw[start] !== QUOTE) return null;
  let end = start + 1;
  while (end < raw.length && raw[end] !== QUOTE) end += raw[end] === BACKSLASH ? 2 : 1;
  if (end >= raw.length) return null;
  return Buffer.concat([raw.subarray(0, start), Buffer.from(JSON.stringify(model)), raw.subarray(end + 1)]);
}

/** How deep in objects and arrays the byte at `position` is (strings skipped). */
function depthAt(raw: Buffer, position: number): number {
  let depth = 0;
  for (let i = 0; i < position; i++) {
    const byte = raw[i];
    if (byte === QUOTE) {
      for (i++; i < position && raw[i] !== QUOTE; i++) if (raw[i] === BACKSLASH) i++;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
    else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth--;
  }
  return depth;
}
