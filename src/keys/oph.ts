/**
 * One-permutation hashing with optimal densification (Li, Owen and Zhang 2012; Shrivastava
 * 2017): one tabulation hash per attribute sends it to one of K = n·m bins and orders it inside
 * the bin; each bin keeps its minimum, and an empty bin borrows the minimum of the first
 * non-empty bin on its own pseudo-random probe sequence (the same sequence for every set, so
 * two sets collide in a bin with probability equal to their Jaccard similarity). Cost: one hash
 * per attribute plus one per bin, instead of n·m per attribute.
 */
import { applyTables } from './byte-tables.ts';
import type { LshFamily } from './family.ts';
import type { SeededStream } from './random.ts';
import { randomTables } from './tabulation.ts';

/** Murmur3's 32-bit finaliser: a bijective mixer, used only to draw densification probes. */
function fmix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Bin of probe `attempt` for empty bin `j` among k bins. */
function probeBin(seed: number, j: number, attempt: number, k: number): number {
  const h = fmix32(seed ^ fmix32(Math.imul(j, 0x9e3779b1) ^ Math.imul(attempt, 0x85ebca77)));
  return Math.floor((h * k) / 2 ** 32);
}

export function ophFamily(n: number, m: number, bits: number, rng: SeededStream): LshFamily {
  const k = n * m;
  const binTable = randomTables(1, 64, rng); // hi word picks the bin, lo word orders within it
  const outTable = randomTables(1, bits, rng); // a bin's value: T(argmin's hash ⊕ bin salt)
  const salts = rng.fill(new Uint32Array(2 * k));
  const probeSeed = rng.nextUint32();
  // Scratch reused across calls: minima() is synchronous, so calls never interleave.
  const bestOrder = new Float64Array(k);
  const bestElem = new Int32Array(k);
  const g = new Uint32Array(2);

  return {
    name: 'oph',
    n,
    m,
    bits,
    minima(h, count, out) {
      bestOrder.fill(2 ** 32);
      bestElem.fill(-1);
      for (let e = 0; e < count; e++) {
        const hi = h[2 * e] as number;
        const lo = h[2 * e + 1] as number;
        applyTables(binTable, 0, hi, lo, g);
        const gl = g[1] as number;
        const bin = Math.floor(((g[0] as number) * k) / 2 ** 32);
        const cur = bestElem[bin] as number;
        const ord = bestOrder[bin] as number;
        if (gl < ord || (gl === ord && cur >= 0 && lessHash(h, e, cur))) {
          bestOrder[bin] = gl;
          bestElem[bin] = e;
        }
      }
      for (let j = 0; j < k; j++) {
        let src = j;
        if (bestElem[j] === -1) src = densify(j);
        const e = bestElem[src] as number;
        applyTables(
          outTable,
          0,
          ((h[2 * e] as number) ^ (salts[2 * j] as number)) >>> 0,
          ((h[2 * e + 1] as number) ^ (salts[2 * j + 1] as number)) >>> 0,
          out,
          2 * j,
        );
      }
    },
  };

  function densify(j: number): number {
    // Expected attempts: k / (non-empty bins). The cap only guards against an endless loop.
    for (let attempt = 1; attempt <= 64 * k; attempt++) {
      const b = probeBin(probeSeed, j, attempt, k);
      if (bestElem[b] !== -1) return b;
    }
    for (let d = 1; d < k; d++) if (bestElem[(j + d) % k] !== -1) return (j + d) % k;
    throw new Error('densify: no element in any bin');
  }
}

/** Ties in the within-bin order are broken by the attribute hash, so every peer agrees. */
function lessHash(h: Uint32Array, a: number, b: number): boolean {
  const ah = h[2 * a] as number;
  const bh = h[2 * b] as number;
  return ah < bh || (ah === bh && (h[2 * a + 1] as number) < (h[2 * b + 1] as number));
}
