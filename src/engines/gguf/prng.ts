// A seeded PRNG so generated weights are byte-identical across runs and machines.
// mulberry32 uses only 32-bit integer ops; the normals use Box-Muller, whose Math.log,
// Math.sqrt and Math.cos are V8's portable fdlibm ports (src/base/ieee754.cc), not the
// platform libm, and the results are rounded to float32 anyway.

export interface Prng {
  /** Uniform in [0, 1). */
  uniform(): number;
  /** Standard normal, scaled by `std`. */
  normal(std?: number): number;
}

export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  const uniform = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = (std = 1): number => {
    const u1 = 1 - uniform(); // (0, 1], so log never sees 0
    const u2 = uniform();
    return std * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  };
  return { uniform, normal };
}
