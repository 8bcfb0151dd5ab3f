/**
 * The "already collected" filter a search attaches to its later queries: a plain Bloom filter
 * (Bloom 1970) over the (community id, version) pairs the requester holds, so the nodes it asks
 * next leave those descriptors out of their answers instead of sending them again. A false
 * positive silently drops a result, so the filter is sized for a false-positive rate of at most
 * 0.1% (`SEEN_FALSE_POSITIVE_RATE`) at the number of items it holds.
 *
 * Written here rather than taken from a Bloom filter package: the bit layout and the hashing are
 * part of the wire protocol, so they must be fixed by this project, not by a library's release.
 * Layout: bit j is bit (j mod 8) of byte ⌊j / 8⌋; an item's K bits are (a + i·b) mod m for
 * i = 0..K−1 (Kirsch–Mitzenmacher double hashing), a and b the high and low halves of xxHash64
 * (seed 0) of the UTF-8 text `<id>:<version>`, b forced odd.
 */
import xxhash from 'xxhash-wasm';

const { h64Raw } = await xxhash();
const encoder = new TextEncoder();

export const SEEN_FALSE_POSITIVE_RATE = 0.001;
/** Largest filter a query may carry (bytes): ≈ 4,500 items at 0.1%. */
export const MAX_SEEN_BYTES = 8192;
export const MAX_SEEN_HASHES = 32;

export interface SeenFilter {
  /** Hash functions per item, K. */
  k: number;
  /** The m = 8 · bits.length bits. */
  bits: Uint8Array;
}

/** m and K for n items at false-positive rate p: m = ⌈−n ln p / ln²2⌉ (whole bytes), K = round(m/n · ln 2). */
export function seenFilterSize(
  n: number,
  p = SEEN_FALSE_POSITIVE_RATE,
): { bytes: number; k: number } {
  const items = Math.max(1, n);
  const bits = Math.ceil((-items * Math.log(p)) / Math.LN2 ** 2);
  const bytes = Math.ceil(bits / 8);
  const k = Math.min(MAX_SEEN_HASHES, Math.max(1, Math.round(((bytes * 8) / items) * Math.LN2)));
  return { bytes, k };
}

/** The expected false-positive rate of a filter of m bits and K hashes holding n items. */
export function seenFalsePositiveRate(mBits: number, k: number, n: number): number {
  return (1 - Math.exp((-k * n) / mBits)) ** k;
}

function positions(id: string, version: number, k: number, m: number): number[] {
  const h = h64Raw(encoder.encode(`${id}:${version}`));
  const a = Number(h >> 32n);
  // `| 1` works on int32s: `>>> 0` brings the result back to an unsigned 32-bit number.
  const b = (Number(h & 0xffffffffn) | 1) >>> 0;
  const out: number[] = [];
  // a + i·b stays below 2^32 + 32·2^32, exact in a double.
  for (let i = 0; i < k; i++) out.push((a + i * b) % m);
  return out;
}

/**
 * A filter holding `items`, sized for 0.1% false positives; null when they would not fit in
 * `maxBytes`, itself at most MAX_SEEN_BYTES (the query then goes without one: answers are only
 * larger, never wrong).
 */
export function buildSeenFilter(
  items: Iterable<{ id: string; version: number }>,
  maxBytes = MAX_SEEN_BYTES,
): SeenFilter | null {
  const list = [...items];
  if (list.length === 0) return null;
  const { bytes, k } = seenFilterSize(list.length);
  if (bytes > Math.min(maxBytes, MAX_SEEN_BYTES)) return null;
  const bits = new Uint8Array(bytes);
  const m = bytes * 8;
  for (const { id, version } of list) {
    for (const j of positions(id, version, k, m))
      bits[j >> 3] = (bits[j >> 3] as number) | (1 << (j & 7));
  }
  return { k, bits };
}

/** Whether the filter (probably) holds this version of the community. */
export function seenHas(f: SeenFilter, id: string, version: number): boolean {
  const m = f.bits.length * 8;
  if (m === 0) return false;
  for (const j of positions(id, version, f.k, m)) {
    if (((f.bits[j >> 3] as number) & (1 << (j & 7))) === 0) return false;
  }
  return true;
}
