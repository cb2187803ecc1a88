// Vectors for the memory benches (docs/memory.md, "Figures"):
// - `uniform`: random unit vectors, the worst case for an approximate index: in 384
//   dimensions every point is about as far from a query as any other, so a graph index has
//   no neighbourhood to follow;
// - `embedding-like`: unit vectors of low intrinsic dimension (a random 16-dimensional
//   subspace plus a little noise), which is how sentence embeddings behave: their nearest
//   neighbours are meaningfully nearer, and an index can find them.
export const VECTOR_KINDS = ['embedding-like', 'uniform'];

function gaussian() {
  return Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random());
}

function unit(v) {
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** A function answering a new vector of `kind` each call (one random subspace per source). */
export function vectorSource(dim, kind = 'embedding-like', rank = 16, noise = 0.05) {
  if (kind === 'uniform') return () => unit(Array.from({ length: dim }, () => Math.random() * 2 - 1));
  if (kind !== 'embedding-like') throw new Error(`unknown vector kind ${kind}: one of ${VECTOR_KINDS.join(', ')}`);
  const basis = Array.from({ length: rank }, () => Array.from({ length: dim }, gaussian));
  return () => {
    const z = Array.from({ length: rank }, gaussian);
    const v = Array.from({ length: dim }, () => noise * gaussian() * Math.sqrt(rank));
    for (let r = 0; r < rank; r++) for (let d = 0; d < dim; d++) v[d] += z[r] * basis[r][d];
    return unit(v);
  };
}
