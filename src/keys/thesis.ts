/**
 * The thesis's LSH scheme (algorithms 4.1–4.4, after Gupta, Agrawal and El Abbadi): approximate
 * min-wise permutations that shuffle the bits of b-bit integers. A scheme is a list of keys of
 * b, b/2, …, 2 bits, each with exactly half its bits set; applying a key to a block moves the
 * bits under the key's 1s, in order, to the block's first half and the others to its second
 * half. Composed, a scheme is a fixed permutation of the b bit positions, so it is compiled
 * once into byte tables and applied with 8 lookups per half-word.
 *
 * Bit positions are numbered from the most significant (position 0) to the least (b − 1), so a
 * key or value read as a bit array reads like the number written in binary.
 */
import { byteOffsets, FUNCTION_WORDS, tableMinima } from './byte-tables.ts';
import type { LshFamily } from './family.ts';
import type { SeededStream } from './random.ts';

/** A key of algorithm 4.1: a bit array (0/1 entries) with exactly half its bits set. */
export type SchemeKey = Uint8Array;

/**
 * Algorithm 4.1: generates n sets of m schemes; scheme [i][j] is the list of keys of b, b/2, …,
 * 2 bits. Bits to set are drawn uniformly from the stream until half of the key is set.
 */
export function generateSchemes(
  n: number,
  m: number,
  b: number,
  rng: SeededStream,
): SchemeKey[][][] {
  const keys: SchemeKey[][][] = [];
  for (let i = 0; i < n; i++) {
    const set: SchemeKey[][] = [];
    for (let j = 0; j < m; j++) {
      const scheme: SchemeKey[] = [];
      for (let s = b; s > 1; s /= 2) {
        const key = new Uint8Array(s);
        let setCounter = 0;
        while (setCounter < s / 2) {
          const bitToSet = rng.below(s);
          if (key[bitToSet] === 0) {
            key[bitToSet] = 1;
            setCounter++;
          }
        }
        scheme.push(key);
      }
      set.push(scheme);
    }
    keys.push(set);
  }
  return keys;
}

/**
 * Algorithm 4.4 (ApplyKey) as a map of positions: dest[p] is where the bit at position p of a
 * b-bit value goes when the key (of keySize = key.length bits) is applied to every block. The
 * printed pseudocode writes 0-branch bits to `middle + nSet`; it must be `middle + nClear`
 * (middle = first position of the block's second half), or the result is not a permutation.
 */
export function keyPositions(key: SchemeKey, b: number): Int32Array {
  const keySize = key.length;
  const dest = new Int32Array(b);
  for (let lower = 0; lower + keySize <= b; lower += keySize) {
    const middle = lower + keySize / 2;
    let nSet = 0;
    let nClear = 0;
    for (let i = 0; i < keySize; i++) {
      dest[lower + i] = key[i] === 1 ? lower + nSet++ : middle + nClear++;
    }
  }
  return dest;
}

/**
 * Algorithm 4.3 (ApplyPermutation) compiled: the permutation σ of positions that applying the
 * scheme's keys in order (b bits first, then b/2, …) amounts to; bit p of the input lands at σ[p].
 */
export function compileScheme(scheme: readonly SchemeKey[], b: number): Int32Array {
  const sigma = new Int32Array(b).map((_, p) => p);
  for (const key of scheme) {
    const dest = keyPositions(key, b);
    for (let p = 0; p < b; p++) sigma[p] = dest[sigma[p] as number] as number;
  }
  return sigma;
}

/**
 * Writes σ as byte tables (function `f` of `t`). A b-bit value sits in the low b bits of the
 * 64-bit word pair, so position p is container bit 64 − b + p counted from the top.
 */
export function writePermutationTables(
  sigma: Int32Array,
  b: number,
  t: Uint32Array,
  f: number,
): void {
  const base = f * FUNCTION_WORDS;
  const shift = 64 - b;
  for (let c = 0; c < 8; c++) {
    for (let v = 0; v < 256; v++) {
      let hi = 0;
      let lo = 0;
      for (let bit = 0; bit < 8; bit++) {
        if (((v >>> (7 - bit)) & 1) === 0) continue;
        const q = 8 * c + bit; // container position of this input bit, 0 = most significant
        if (q < shift) continue; // above the b-bit value: ignored
        const out = (sigma[q - shift] as number) + shift;
        if (out < 32) hi |= 1 << (31 - out);
        else lo |= 1 << (63 - out);
      }
      t[base + 2 * (256 * c + v)] = hi >>> 0;
      t[base + 2 * (256 * c + v) + 1] = lo >>> 0;
    }
  }
}

/** The thesis family: n·m compiled bit-permutation schemes over the attributes' hashes. */
export function thesisFamily(n: number, m: number, bits: number, rng: SeededStream): LshFamily {
  const schemes = generateSchemes(n, m, bits, rng);
  const t = new Uint32Array(n * m * FUNCTION_WORDS);
  schemes.forEach((set, i) => {
    set.forEach((scheme, j) => {
      writePermutationTables(compileScheme(scheme, bits), bits, t, i * m + j);
    });
  });
  return {
    name: 'thesis',
    n,
    m,
    bits,
    minima(h, count, out) {
      tableMinima(t, n * m, byteOffsets(h, count), count, out);
    },
  };
}
