/**
 * A node's periodic work (republish, expiry, bootstrap retries): intervals that never keep the
 * process alive, whose failures become warnings instead of unhandled rejections.
 */
export class Timers {
  readonly #warn: (msg: string) => void;
  #timers: NodeJS.Timeout[] = [];

  constructor(warn: (msg: string) => void) {
    this.#warn = warn;
  }

  every(ms: number, fn: () => Promise<void>): void {
    const t = setInterval(() => {
      fn().catch((err) => this.#warn(`${(err as Error).message}`));
    }, ms);
    // A web page's timers are plain numbers, without unref.
    (t as { unref?: () => void }).unref?.();
    this.#timers.push(t);
  }

  clear(): void {
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
  }
}
