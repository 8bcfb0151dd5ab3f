/**
 * A 64-bit → 64-bit function given as 8 tables of 256 entries, one per input byte, whose
 * outputs are XORed: h(x) = T0[x0] ⊕ … ⊕ T7[x7]. With random entries it is simple tabulation
 * hashing; with the images of single bits it is any map linear over GF(2), such as the thesis's
 * bit permutations. One function takes FUNCTION_WORDS words: (byte c, value v) → hi, lo at
 * 2·(256·c + v).
 */
export const FUNCTION_WORDS = 8 * 256 * 2;

/** Offsets 2·(256·c + byte_c) of every element's 8 bytes, computed once per set. */
export function byteOffsets(h: Uint32Array, count: number): Int32Array {
  const off = new Int32Array(8 * count);
  for (let k = 0; k < count; k++) {
    const hi = h[2 * k] as number;
    const lo = h[2 * k + 1] as number;
    const o = 8 * k;
    off[o] = (hi >>> 24) << 1;
    off[o + 1] = (256 + ((hi >>> 16) & 255)) << 1;
    off[o + 2] = (512 + ((hi >>> 8) & 255)) << 1;
    off[o + 3] = (768 + (hi & 255)) << 1;
    off[o + 4] = (1024 + (lo >>> 24)) << 1;
    off[o + 5] = (1280 + ((lo >>> 16) & 255)) << 1;
    off[o + 6] = (1536 + ((lo >>> 8) & 255)) << 1;
    off[o + 7] = (1792 + (lo & 255)) << 1;
  }
  return off;
}

/**
 * Applies function `f` of the tables to one 64-bit value (hi, lo) and writes the result's words
 * to out[at], out[at + 1] (an out-parameter rather than a returned pair: this runs per element).
 */
export function applyTables(
  t: Uint32Array,
  f: number,
  hi: number,
  lo: number,
  out: Uint32Array,
  at = 0,
): void {
  const b = f * FUNCTION_WORDS;
  const o0 = b + ((hi >>> 24) << 1);
  const o1 = b + ((256 + ((hi >>> 16) & 255)) << 1);
  const o2 = b + ((512 + ((hi >>> 8) & 255)) << 1);
  const o3 = b + ((768 + (hi & 255)) << 1);
  const o4 = b + ((1024 + (lo >>> 24)) << 1);
  const o5 = b + ((1280 + ((lo >>> 16) & 255)) << 1);
  const o6 = b + ((1536 + ((lo >>> 8) & 255)) << 1);
  const o7 = b + ((1792 + (lo & 255)) << 1);
  out[at] =
    (t[o0] as number) ^
    (t[o1] as number) ^
    (t[o2] as number) ^
    (t[o3] as number) ^
    (t[o4] as number) ^
    (t[o5] as number) ^
    (t[o6] as number) ^
    (t[o7] as number);
  out[at + 1] =
    (t[o0 + 1] as number) ^
    (t[o1 + 1] as number) ^
    (t[o2 + 1] as number) ^
    (t[o3 + 1] as number) ^
    (t[o4 + 1] as number) ^
    (t[o5 + 1] as number) ^
    (t[o6 + 1] as number) ^
    (t[o7 + 1] as number);
}

/**
 * For each of `functions` functions, the minimum over the `count` elements (byte offsets `off`)
 * of the 64-bit output, compared unsigned; written to out[2f], out[2f + 1]. The low word is only
 * computed when the high word does not already lose, which halves the table reads. The lookups
 * are written out rather than calling applyTables: this loop runs |P|·n·m times per profile.
 */
export function tableMinima(
  t: Uint32Array,
  functions: number,
  off: Int32Array,
  count: number,
  out: Uint32Array,
): void {
  for (let f = 0; f < functions; f++) {
    const b = f * FUNCTION_WORDS;
    let mh = 2 ** 32;
    let ml = 0;
    for (let k = 0, o = 0; k < count; k++, o += 8) {
      const o0 = b + (off[o] as number);
      const o1 = b + (off[o + 1] as number);
      const o2 = b + (off[o + 2] as number);
      const o3 = b + (off[o + 3] as number);
      const o4 = b + (off[o + 4] as number);
      const o5 = b + (off[o + 5] as number);
      const o6 = b + (off[o + 6] as number);
      const o7 = b + (off[o + 7] as number);
      const vh =
        ((t[o0] as number) ^
          (t[o1] as number) ^
          (t[o2] as number) ^
          (t[o3] as number) ^
          (t[o4] as number) ^
          (t[o5] as number) ^
          (t[o6] as number) ^
          (t[o7] as number)) >>>
        0;
      if (vh > mh) continue;
      const vl =
        ((t[o0 + 1] as number) ^
          (t[o1 + 1] as number) ^
          (t[o2 + 1] as number) ^
          (t[o3 + 1] as number) ^
          (t[o4 + 1] as number) ^
          (t[o5 + 1] as number) ^
          (t[o6 + 1] as number) ^
          (t[o7 + 1] as number)) >>>
        0;
      if (vh < mh || vl < ml) {
        mh = vh;
        ml = vl;
      }
    }
    out[2 * f] = mh;
    out[2 * f + 1] = ml;
  }
}
