import { realScheduler, type Scheduler } from './scheduler.ts';

/**
 * A node's periodic work (republish, expiry, bootstrap retries) on its scheduler (real intervals
 * in a process, the test's clock in a test); failures become warnings instead of unhandled
 * rejections.
 */
export class Timers {
  readonly #warn: (msg: string) => void;
  readonly #scheduler: Scheduler;
  #cancels: (() => void)[] = [];

  constructor(warn: (msg: string) => void, scheduler: Scheduler = realScheduler) {
    this.#warn = warn;
    this.#scheduler = scheduler;
  }

  every(ms: number, fn: () => Promise<void>): void {
    this.#cancels.push(
      this.#scheduler.every(ms, () => fn().catch((err) => this.#warn(`${(err as Error).message}`))),
    );
  }

  clear(): void {
    for (const cancel of this.#cancels) cancel();
    this.#cancels = [];
  }
}
