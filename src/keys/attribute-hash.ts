import xxhash from 'xxhash-wasm';
import type { Profile } from '../profile/profile.ts';

// xxHash64 (seed 0) of the attribute's UTF-8 bytes: a fixed, published, well-mixed hash that
// every peer computes alike. WebAssembly instantiation is asynchronous, hence the top-level await.
const { h64 } = await xxhash();

const cache = new WeakMap<Profile, Uint32Array>();

/** The 64-bit robust hash of one attribute, as a bigint. */
export function attributeHash(attribute: string): bigint {
  return h64(attribute);
}

/**
 * The robust hashes of attributes (algorithm 4.2, step 2) as (hi, lo) 32-bit word pairs: word
 * 2k is the high half of attribute k's hash, word 2k + 1 the low half.
 */
export function hashAttributes(attributes: Iterable<string>, count: number): Uint32Array {
  const out = new Uint32Array(2 * count);
  let k = 0;
  for (const a of attributes) {
    const v = h64(a);
    out[k++] = Number(v >> 32n);
    out[k++] = Number(v & 0xffffffffn);
  }
  return out;
}

/** `hashAttributes` of a profile, cached per profile (profiles are immutable). */
export function attributeHashes(p: Profile): Uint32Array {
  let out = cache.get(p);
  if (out === undefined) {
    out = hashAttributes(p.attributes(), p.size);
    cache.set(p, out);
  }
  return out;
}
