/**
 * How far from a key its closest peer usually is, learnt from this node's own lookups. In a
 * Kademlia swarm of N nodes the ids are spread evenly, so the i-th closest to a key lies at
 * about i / N of the id space (XOR distance as a fraction of 2^256): a peer much farther than
 * that is seldom a lookup's final closest. Read ahead uses it to send the whole request only to
 * peers that may be the final one (read-ahead.ts); a guess that is off costs round trips or
 * bytes, never an answer, as the peer a lookup ends with is always asked.
 *
 * The estimate: the lookups' r-th closest (r up to `RANKS`) at distance d_r each give the
 * Poisson-process estimate of the swarm's density r / d_r; over a window of lookups their sums,
 * Σr / Σd_r, which no single outlier sways. Its relative error is about 1 / √Σr, so the radius
 * is widened by two of those: wide after the join's one self-lookup, near `factor` after a
 * window of lookups.
 */
export class ClosestDistance {
  /** The window's lookups, oldest first: rank r and distance d_r of each. */
  readonly #samples: { r: number; d: number }[] = [];
  #rankSum = 0;
  #distanceSum = 0;

  /** Lookups remembered. */
  readonly window: number;
  /** Lookups needed before there is an estimate. */
  readonly minSamples: number;

  constructor(window = 64, minSamples = 1) {
    this.window = window;
    this.minSamples = minSamples;
  }

  /** Ranks of a lookup's result the estimate uses: beyond the few closest, lookups miss peers. */
  static readonly RANKS = 3;

  /** One lookup's result: the distances, as fractions of the id space, closest first. */
  record(distances: readonly number[]): void {
    const r = Math.min(ClosestDistance.RANKS, distances.length);
    const d = distances[r - 1];
    // A lookup that found nothing, or a distance of 0 (a key equal to an id), tells no density.
    if (r === 0 || d === undefined || !(d > 0) || d > 1) return;
    this.#samples.push({ r, d });
    this.#rankSum += r;
    this.#distanceSum += d;
    if (this.#samples.length > this.window) {
      const old = this.#samples.shift() as { r: number; d: number };
      this.#rankSum -= old.r;
      this.#distanceSum -= old.d;
    }
  }

  /** Nodes in the swarm, as the window estimates it; none before `minSamples` lookups. */
  swarmSize(): number | undefined {
    if (this.#samples.length < this.minSamples || !(this.#distanceSum > 0)) return undefined;
    return this.#rankSum / this.#distanceSum;
  }

  /**
   * `factor` × the expected distance of the `rank`-th closest peer to a key, widened by the
   * estimate's uncertainty; none (no bound) before there is an estimate.
   */
  radius(rank: number, factor: number): number | undefined {
    const n = this.swarmSize();
    if (n === undefined) return undefined;
    return ((factor * rank) / n) * (1 + 2 / Math.sqrt(this.#rankSum));
  }
}
