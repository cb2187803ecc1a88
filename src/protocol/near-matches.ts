// "Did you mean": the one edit distance of the project, and the two ways it is used: the
// closest known name for an unknown config key or request field, and the ids near a model
// a request named (model.not_found's details.candidates).

const MAX_QUERY = 512;

/** Levenshtein distance; returns `cap + 1` early once it is sure to exceed `cap`. */
export function editDistance(a: string, b: string, cap = Infinity): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      row.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > cap) return cap + 1;
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/** Closest known name within two edits, for "did you mean" hints on unknown keys. */
export function suggest(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate, 2);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

/**
 * Up to `limit` ids close to `query`, best first: case-insensitive equal, then prefix, then
 * substring, then a small edit distance; within a tier by edit distance, then by id.
 */
export function nearMatches(query: string, ids: Iterable<string>, limit = 10): string[] {
  // No id is this long (model ids stop at 128), and a long query would make each comparison cost its length squared.
  if (query.length > MAX_QUERY) return [];
  const q = query.toLowerCase();
  const maxDistance = q.length <= 3 ? 1 : Math.max(2, Math.floor(q.length / 4));
  const scored: { id: string; tier: number; distance: number }[] = [];
  for (const id of new Set(ids)) {
    const l = id.toLowerCase();
    const contained = l.length >= 3 && q.includes(l);
    const tier = l === q ? 0
      : l.startsWith(q) || (contained && q.startsWith(l)) ? 1
      : l.includes(q) || contained ? 2
      : 3;
    const distance = editDistance(q, l, tier < 3 ? Infinity : maxDistance);
    if (tier === 3 && distance > maxDistance) continue;
    scored.push({ id, tier, distance });
  }
  scored.sort((a, b) => a.tier - b.tier || a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return scored.slice(0, limit).map((s) => s.id);
}
