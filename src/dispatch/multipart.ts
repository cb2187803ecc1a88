// Just enough multipart/form-data (RFC 7578, RFC 2046 §5.1) to read one small text field out
// of a raw body without parsing it into parts for forwarding: /v1/audio/transcriptions
// forwards the client's bytes verbatim and only needs `model` to route them (and, for a
// replica that knows the model by another id, to put that id in its place).

const LF = 0x0a;
const CR = 0x0d;
const DASH = 0x2d;

/**
 * The boundary of a multipart Content-Type header (`multipart/form-data; boundary=...`,
 * quoted or not), or null when the header is not multipart or names no boundary.
 */
export function multipartBoundary(contentType: string | undefined): string | null {
  if (contentType === undefined || !/^\s*multipart\//i.test(contentType)) return null;
  const match = /;\s*boundary\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(contentType);
  if (!match) return null;
  const boundary = match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? '');
  // RFC 2046: 1 to 70 characters.
  return boundary.length >= 1 && boundary.length <= 70 ? boundary : null;
}

/**
 * The value of the first part named `name` (`Content-Disposition: form-data; name="..."`),
 * decoded as UTF-8, or null when no part has that name (or the body is not the multipart
 * the boundary says). Line ends may be CRLF, as the RFC says, or bare LF. Only delimiter
 * lines and part headers are looked at: file contents are skipped over, not scanned.
 */
export function multipartField(body: Buffer, boundary: string, name: string): string | null {
  const range = fieldRange(body, boundary, name);
  return range === null ? null : body.toString('utf8', range[0], range[1]);
}

/**
 * `body` with the value of the first part named `name` replaced by `value` (every other byte
 * as it was), or null when no part has that name: a replica that knows the model by another
 * id gets that id in the `model` field of a transcription.
 */
export function withMultipartField(body: Buffer, boundary: string, name: string, value: string): Buffer | null {
  const range = fieldRange(body, boundary, name);
  return range === null ? null : Buffer.concat([body.subarray(0, range[0]), Buffer.from(value, 'utf8'), body.subarray(range[1])]);
}

/** Where the content of the first part named `name` starts and ends. */
function fieldRange(body: Buffer, boundary: string, name: string): [number, number] | null {
  const dashBoundary = Buffer.from(`--${boundary}`, 'latin1');
  let delimiter = firstDelimiter(body, dashBoundary);
  while (delimiter !== -1) {
    let cursor = delimiter + dashBoundary.length;
    if (body[cursor] === DASH && body[cursor + 1] === DASH) return null; // the close delimiter
    // Transport padding (spaces, tabs) may follow the boundary on its line.
    while (body[cursor] === 0x20 || body[cursor] === 0x09) cursor++;
    if (body[cursor] === CR) cursor++;
    if (body[cursor] !== LF) return null; // not a delimiter line: malformed
    const partStart = cursor + 1;
    const next = nextDelimiter(body, dashBoundary, partStart);
    if (next === -1) return null; // no delimiter after this part: truncated
    // The line break before the next delimiter belongs to the delimiter, not the content.
    const partEnd = body[next - 2] === CR ? next - 2 : next - 1;
    const part = splitPart(body, partStart, Math.max(partStart, partEnd));
    if (part !== null && partName(part.headers) === name) return [part.contentStart, Math.max(part.contentStart, partEnd)];
    delimiter = next;
  }
  return null;
}

/** The first `--boundary` at the very start of the body or at the start of a line. */
function firstDelimiter(body: Buffer, dashBoundary: Buffer): number {
  if (body.subarray(0, dashBoundary.length).equals(dashBoundary)) return 0;
  return nextDelimiter(body, dashBoundary, 0);
}

/** The next `--boundary` at the start of a line, from `from` on (the index of its first `-`). */
function nextDelimiter(body: Buffer, dashBoundary: Buffer, from: number): number {
  let at = body.indexOf(dashBoundary, from);
  while (at !== -1) {
    if (at > 0 && body[at - 1] === LF) return at;
    at = body.indexOf(dashBoundary, at + 1);
  }
  return -1;
}

/** A part's header block (as text) and where its content starts, or null without a blank line. */
function splitPart(body: Buffer, start: number, end: number): { headers: string; contentStart: number } | null {
  // No headers at all: the part begins with the blank line.
  if (body[start] === LF) return { headers: '', contentStart: start + 1 };
  if (body[start] === CR && body[start + 1] === LF) return { headers: '', contentStart: start + 2 };
  for (let i = body.indexOf(LF, start); i !== -1 && i < end; i = body.indexOf(LF, i + 1)) {
    if (body[i + 1] === LF) return { headers: body.toString('utf8', start, i), contentStart: i + 2 };
    if (body[i + 1] === CR && body[i + 2] === LF) return { headers: body.toString('utf8', start, i), contentStart: i + 3 };
  }
  return null;
}

/** The `name` parameter of a form-data Content-Disposition header, or null. */
function partName(headers: string): string | null {
  for (const line of headers.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon === -1 || line.slice(0, colon).trim().toLowerCase() !== 'content-disposition') continue;
    const value = line.slice(colon + 1);
    if (!/^\s*form-data\s*(;|$)/i.test(value)) return null;
    const params = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
    for (let m = params.exec(value); m !== null; m = params.exec(value)) {
      if (m[1]?.toLowerCase() !== 'name') continue;
      return m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '').trim();
    }
    return null;
  }
  return null;
}
