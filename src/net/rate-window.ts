/**
 * Requests per peer in fixed windows of the clock (window i holds the times [i·w, (i+1)·w)).
 * Written here rather than taken from @libp2p/utils: its RateLimiter reads the wall clock and
 * arms a timer per key, so neither a test nor a simulation could move its windows; this is the
 * same fixed-window rule on an injected clock, and memory holds the current window's peers only.
 */
export class RateWindows {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  #window = Number.NaN;
  readonly #used = new Map<string, number>();

  constructor(limit: number, windowMs: number, now: () => number = Date.now) {
    this.#limit = limit;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /** Counts one request of `peer`: undefined while within the limit, else the ms until the next window. */
  take(peer: string): number | undefined {
    const now = this.#now();
    const window = Math.floor(now / this.#windowMs);
    if (window !== this.#window) {
      this.#window = window;
      this.#used.clear();
    }
    const used = (this.#used.get(peer) ?? 0) + 1;
    this.#used.set(peer, used);
    return used <= this.#limit ? undefined : (window + 1) * this.#windowMs - now;
  }
}
