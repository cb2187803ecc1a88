// The gateway's own overhead, read from the Server-Timing header every /v1 answer carries
// (src/dispatch/server-timing.ts writes it): `svc;dur=<ms>` is svc's time before the request
// left for the engine, `load;dur=<ms>` the wait for a slot to start, when there was one. An
// engine's own entries may come first (forward.ts appends svc's after them).

export interface TimingEntry {
  name: string;
  /** Milliseconds, when the entry has a valid dur. */
  dur: number | null;
  desc: string | null;
}

/** Split on `sep` outside double-quoted strings (a desc may hold commas and semicolons). */
function splitOutsideQuotes(text: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '\\' && quoted && i + 1 < text.length) {
      current += char + text[++i];
      continue;
    }
    if (char === '"') quoted = !quoted;
    if (char === sep && !quoted) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts;
}

function unquote(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length < 2 || !trimmed.startsWith('"') || !trimmed.endsWith('"')) return trimmed;
  return trimmed.slice(1, -1).replace(/\\(.)/g, '$1');
}

/** Every metric in a Server-Timing header (RFC: `name;dur=1.2;desc="…", …`); junk is skipped. */
export function parseServerTiming(header: string | null): TimingEntry[] {
  if (!header) return [];
  const entries: TimingEntry[] = [];
  for (const metric of splitOutsideQuotes(header, ',')) {
    const [rawName, ...params] = splitOutsideQuotes(metric, ';');
    const name = rawName?.trim() ?? '';
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) continue;
    const entry: TimingEntry = { name, dur: null, desc: null };
    for (const param of params) {
      const at = param.indexOf('=');
      const key = (at === -1 ? param : param.slice(0, at)).trim().toLowerCase();
      const value = at === -1 ? '' : unquote(param.slice(at + 1));
      // The first of a repeated parameter counts (the spec's rule).
      if (key === 'dur' && entry.dur === null && value !== '' && Number.isFinite(Number(value))) entry.dur = Number(value);
      if (key === 'desc' && entry.desc === null) entry.desc = value;
    }
    entries.push(entry);
  }
  return entries;
}

export interface GatewayTiming {
  /** svc's own time (ms), null when the answer had no svc entry. */
  overheadMs: number | null;
  /** The wait for a slot to start (ms), null when there was none. */
  loadMs: number | null;
}

/** svc's overhead and slot-load wait from a Server-Timing header (the last svc entry wins: svc appends its own). */
export function gatewayTiming(header: string | null): GatewayTiming {
  const entries = parseServerTiming(header);
  const last = (name: string) => entries.filter((e) => e.name === name && e.dur !== null).at(-1)?.dur ?? null;
  return { overheadMs: last('svc'), loadMs: last('load') };
}

/** "0.091 ms", "12.4 ms", "1.84 s": a duration in ms as a person reads it. */
export function formatMs(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${Number(ms.toPrecision(2))} ms`;
}
