import type { Scheduler } from '../../src/node/scheduler.ts';

interface Timer {
  due: number;
  ms: number;
  fn: () => Promise<void>;
}

/**
 * A clock a test moves by hand, and the scheduler of the periodic work that runs on it: give a
 * node `now: clock.now, scheduler: clock`, and record lifetimes, rate windows, republish rounds
 * and expiry sweeps happen when the test says so, however slow the machine is. The clock stands
 * still between moves: a node asked more than its `peerRequestsPerSecond` by one peer in that
 * time answers `busy`, as it would within one real second.
 */
export class FakeClock implements Scheduler {
  #t: number;
  readonly #timers = new Set<Timer>();

  /** Starts at a whole second (rate windows then start with the clock). */
  constructor(start = Math.floor(Date.now() / 1000) * 1000) {
    this.#t = start;
  }

  readonly now = (): number => this.#t;

  every(ms: number, fn: () => Promise<void>): () => void {
    const timer = { due: this.#t + ms, ms, fn };
    this.#timers.add(timer);
    return () => this.#timers.delete(timer);
  }

  /**
   * Moves the clock `ms` forward. Each timer due on the way runs at its own time, in time order,
   * and is awaited before the clock moves on (as a timer's work is done before its next period).
   */
  async advance(ms: number): Promise<void> {
    const end = this.#t + ms;
    for (;;) {
      let next: Timer | undefined;
      for (const t of this.#timers)
        if (t.due <= end && (next === undefined || t.due < next.due)) next = t;
      if (next === undefined) break;
      this.#t = next.due;
      next.due += next.ms;
      await next.fn();
    }
    this.#t = end;
  }
}
