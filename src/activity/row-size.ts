// What one activity row may take, and what it takes (docs/troubleshooting.md, "Bounded
// stores"). A row's details are whole up to ROW_DETAILS_MAX_BYTES; a larger one (a settings
// change with a value of megabytes) is kept as a note of its size and top-level keys, so one
// request cannot make one row push the rest of the log past [activity].max_mb. The size the
// byte cap counts is the same in SQL (for rows on disk) and here (for the row being written).

export const ROW_DETAILS_MAX_BYTES = 256 * 1024;
/** A message longer than this is cut (messages are svc's own lines, sometimes quoting input). */
export const ROW_MESSAGE_MAX_CHARS = 4096;
/** What the fixed columns (id, ts, kind, outcome, request id) and SQLite's record take, about. */
const ROW_OVERHEAD_BYTES = 96;

/** A row's size on disk as the byte cap counts it, in SQL over the activity table's columns. */
export const ROW_SIZE_SQL = `(octet_length(action) + octet_length(target) + octet_length(actor) + octet_length(message) + octet_length(details) + ${ROW_OVERHEAD_BYTES})`;

export function rowSize(row: { action: string; target: string; actor: string; message: string; details: string }): number {
  return Buffer.byteLength(row.action) + Buffer.byteLength(row.target) + Buffer.byteLength(row.actor) + Buffer.byteLength(row.message) + Buffer.byteLength(row.details) + ROW_OVERHEAD_BYTES;
}

/** The details as stored: their JSON, or past the cap the note that replaces them. */
export function detailsText(details: Record<string, unknown>): string {
  const text = JSON.stringify(details);
  const bytes = Buffer.byteLength(text);
  if (bytes <= ROW_DETAILS_MAX_BYTES) return text;
  const keys = Object.keys(details).slice(0, 32).map((key) => key.slice(0, 128));
  return JSON.stringify({ truncated: true, bytes, keys, note: `details over ${ROW_DETAILS_MAX_BYTES} bytes are not kept` });
}

export function messageText(message: string): string {
  return message.length <= ROW_MESSAGE_MAX_CHARS ? message : `${message.slice(0, ROW_MESSAGE_MAX_CHARS)}…`;
}
