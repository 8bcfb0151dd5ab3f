/** The process's resident memory over a run, sampled every second (for the report's chart). */
export class RssSampler {
  readonly samples: { t: number; rss: number }[] = [];
  readonly #startedAt: number;
  readonly #timer: NodeJS.Timeout;

  constructor(startedAt: number) {
    this.#startedAt = startedAt;
    this.#timer = setInterval(() => this.sample(), 1000);
    this.#timer.unref();
    this.sample();
  }

  /** RSS now, MiB, recorded. */
  sample(): number {
    const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
    this.samples.push({ t: Date.now() - this.#startedAt, rss });
    return rss;
  }

  peak(): number {
    return Math.max(0, ...this.samples.map((s) => s.rss));
  }

  stop(): void {
    clearInterval(this.#timer);
    this.sample();
  }
}
