// The pruning rule every bounded store of svc shares (docs/troubleshooting.md, "Bounded
// stores"): past a cap, the oldest entries go until a tenth of the cap is free again. The
// headroom makes pruning a batch now and then instead of a delete on every write.

/** What a prune over `cap` keeps: a tenth of the cap free (at least one), so the next prune is that far off. */
export function lowWater(cap: number): number {
  return cap - Math.max(1, Math.floor(cap / 10));
}

export interface Held {
  rows: number;
  bytes: number;
}

/**
 * The entries to remove, oldest first, so that both counts end at or below the low-water
 * marks of their caps; never `spared` (the entry just written, which fits the caps by itself).
 * `oldestFirst` is read only as far as needed.
 */
export function oldestBeyond<Id>(oldestFirst: Iterable<{ id: Id; bytes: number }>, held: Held, caps: { maxRows: number; maxBytes: number }, spared?: Id): Id[] {
  const keep = { rows: lowWater(caps.maxRows), bytes: lowWater(caps.maxBytes) };
  let { rows, bytes } = held;
  const doomed: Id[] = [];
  for (const entry of oldestFirst) {
    if (rows <= keep.rows && bytes <= keep.bytes) break;
    if (entry.id === spared) continue;
    doomed.push(entry.id);
    rows -= 1;
    bytes -= entry.bytes;
  }
  return doomed;
}

/** Whether `held` is over either cap. */
export function overCaps(held: Held, caps: { maxRows: number; maxBytes: number }): boolean {
  return held.rows > caps.maxRows || held.bytes > caps.maxBytes;
}
