/**
 * An LSH family for Jaccard similarity: n·m min-hash functions over a set of 64-bit attribute
 * hashes. Two sets give the same value for one function with probability ≈ their Jaccard
 * similarity; an identifier XORs the values of m functions (one band).
 */
export interface LshFamily {
  readonly name: string;
  readonly n: number;
  readonly m: number;
  readonly bits: number;
  /**
   * Writes the n·m min-hash values of the attribute hashes `h` (word pairs hi, lo: 2·count words)
   * into `out` (2·n·m words, function f of band i at index i·m + f). Values fit in `bits` bits, and
   * two functions' values for the same element differ (almost surely), so XOR does not cancel
   * within a band.
   */
  minima(h: Uint32Array, count: number, out: Uint32Array): void;
}
