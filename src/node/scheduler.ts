/**
 * Runs a node's periodic work (republish, expiry sweep, bootstrap retries). A process uses real
 * interval timers; a test passes a scheduler driven by the same clock it gives as `now`, and
 * moves both together, so behaviour that depends on time never waits on the wall clock.
 */
export interface Scheduler {
  /** Calls `fn` every `ms` ms until the returned function is called; `fn` never rejects. */
  every(ms: number, fn: () => Promise<void>): () => void;
}

export const realScheduler: Scheduler = {
  every(ms, fn) {
    const t = setInterval(() => void fn(), ms);
    // Periodic work alone must not keep a process alive (a web page's timers are plain numbers).
    (t as { unref?: () => void }).unref?.();
    return () => clearInterval(t);
  },
};
