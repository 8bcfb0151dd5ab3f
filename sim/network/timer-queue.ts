/**
 * One timer for the whole simulated network: every scheduled delivery waits in a priority queue
 * ordered by due time, and a single setTimeout is armed for the earliest. Thousands of nodes
 * send hundreds of thousands of chunks; a setTimeout each would cost a timer object, a libuv
 * list insertion and a callback per chunk, and would not keep equal due times in order.
 */
import TinyQueue from 'tinyqueue';

/** Something to run at a time; `due` and `seq` are filled in by the queue. */
export interface Timed {
  due: number;
  seq: number;
  run(): void;
}

/** Earliest first; equal times in the order they were scheduled (chunks keep their order). */
const earliest = (a: Timed, b: Timed): number => a.due - b.due || a.seq - b.seq;

export class TimerQueue {
  readonly #heap = new TinyQueue<Timed>([], earliest);
  readonly #now: () => number;
  #seq = 0;
  #timer: NodeJS.Timeout | undefined;
  #armedFor = Number.POSITIVE_INFINITY;
  #firing = false;

  /** `now` in ms on a monotonic clock (performance.now by default). */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  now(): number {
    return this.#now();
  }

  /** Entries waiting. */
  get size(): number {
    return this.#heap.length;
  }

  /** Runs `t.run()` once the clock reaches `due` (never before). */
  at(due: number, t: Timed): void {
    t.due = due;
    t.seq = this.#seq++;
    this.#heap.push(t);
    if (!this.#firing && due < this.#armedFor) this.#arm(due);
  }

  /** Drops everything waiting (the network is shut down). */
  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    while (this.#heap.length > 0) this.#heap.pop();
  }

  #arm(due: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedFor = due;
    // Node's timers count from the loop's cached time, which may lag the clock read here: a
    // timer can fire a little early. #fire checks the clock and re-arms for what is not due.
    this.#timer = setTimeout(this.#fire, Math.max(0, Math.ceil(due - this.#now())));
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    this.#firing = true;
    try {
      const now = this.#now();
      for (let head = this.#heap.peek(); head !== undefined && head.due <= now; ) {
        this.#heap.pop();
        try {
          head.run();
        } catch (err) {
          // One failed delivery must not stall the others; surface it as the delivery would
          // have without the queue.
          queueMicrotask(() => {
            throw err;
          });
        }
        head = this.#heap.peek();
      }
    } finally {
      this.#firing = false;
      const next = this.#heap.peek();
      if (next !== undefined) this.#arm(next.due);
    }
  };
}
