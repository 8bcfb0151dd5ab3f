/**
 * A timeout signal whose timer is cleared when the work is done. AbortSignal.timeout() keeps its
 * timer until it fires and then aborts anyway, building an exception and dispatching abort
 * events to every listener still attached, long after the request finished: on a node serving
 * thousands of requests that is thousands of live timers and a measurable share of the CPU.
 */
export interface Deadline {
  signal: AbortSignal;
  /** Stops the timer; call it when the bounded work has finished. */
  clear(): void;
}

export function deadline(ms: number, outer?: AbortSignal): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`timed out after ${ms} ms`, 'TimeoutError')),
    ms,
  );
  let onOuter: (() => void) | undefined;
  if (outer !== undefined) {
    if (outer.aborted) controller.abort(outer.reason);
    else {
      onOuter = () => controller.abort(outer.reason);
      outer.addEventListener('abort', onOuter, { once: true });
    }
  }
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      if (onOuter !== undefined) outer?.removeEventListener('abort', onOuter);
    },
  };
}
