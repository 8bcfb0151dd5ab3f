/**
 * The event listeners of one simulated connection end, kept in a list per event type.
 *
 * Why not the EventTarget libp2p's streams inherit (main-event's TypedEventEmitter over Node's
 * EventTarget): it keeps, for each listener, a wrapper closure, an abort closure, an entry, its
 * options and Node's own listener record, and a connection end holds the muxer's, the
 * upgrader's and its own listeners for as long as it is open. Every simulated connection has
 * both its ends in the one process, so these were a large share of the heap's objects, which
 * every full collection marks (docs/BENCHMARKS.md, "What a simulated node holds"). Here a
 * listener is one entry.
 *
 * What is kept of EventTarget: listeners run in the order they were added, each listener once
 * per type and capture flag, `once` and `signal`, listener objects' `handleEvent`, a listener
 * removed during a dispatch is not called, one added during it waits for the next, and a
 * listener that throws does not stop the others (its error is thrown on its own, as an uncaught
 * exception, as Node's EventTarget does). Events have no target here: no part of libp2p reads it.
 */

import type { EventHandler } from 'main-event';

// biome-ignore lint/suspicious/noExplicitAny: libp2p's events are of many types, one list holds them
type Listener = EventHandler<any>;

/** EventTarget's options (`passive` means nothing here: no default to prevent is awaited). */
export interface ListenOptions {
  capture?: boolean;
  once?: boolean;
  passive?: boolean;
  signal?: AbortSignal;
}

interface Entry {
  readonly listener: Listener;
  readonly capture: boolean;
  readonly once: boolean;
  removed: boolean;
  signal?: AbortSignal;
  onAbort?: () => void;
}

function capture(options: boolean | ListenOptions | undefined): boolean {
  return typeof options === 'boolean' ? options : options?.capture === true;
}

/** Node's EventTarget reports a listener's error as an uncaught exception, after the dispatch. */
function uncaught(err: unknown): void {
  queueMicrotask(() => {
    throw err;
  });
}

export class LightListeners {
  readonly #byType = new Map<string, Entry[]>();
  readonly #onError: (err: unknown) => void;

  constructor(onError: (err: unknown) => void = uncaught) {
    this.#onError = onError;
  }

  add(type: string, listener: Listener | null, options?: boolean | ListenOptions): void {
    if (listener == null) return;
    const o = typeof options === 'object' ? options : undefined;
    if (o?.signal?.aborted === true) return;
    const c = capture(options);
    let list = this.#byType.get(type);
    if (list === undefined) {
      list = [];
      this.#byType.set(type, list);
    } else if (list.some((e) => e.listener === listener && e.capture === c)) return;
    const entry: Entry = { listener, capture: c, once: o?.once === true, removed: false };
    if (o?.signal !== undefined) {
      const signal = o.signal;
      entry.signal = signal;
      entry.onAbort = () => this.remove(type, listener, c);
      signal.addEventListener('abort', entry.onAbort, { once: true });
    }
    list.push(entry);
  }

  remove(
    type: string,
    listener: Listener | null | undefined,
    options?: boolean | ListenOptions,
  ): void {
    const list = this.#byType.get(type);
    if (list === undefined || listener == null) return;
    const c = capture(options);
    const i = list.findIndex((e) => e.listener === listener && e.capture === c);
    if (i < 0) return;
    const entry = list.splice(i, 1)[0];
    if (entry === undefined) return;
    entry.removed = true;
    if (entry.onAbort !== undefined) entry.signal?.removeEventListener('abort', entry.onAbort);
    if (list.length === 0) this.#byType.delete(type);
  }

  count(type: string): number {
    return this.#byType.get(type)?.length ?? 0;
  }

  /** Calls the type's listeners with `this` set to `target`; false if one prevented the default. */
  dispatch(target: object, event: Event): boolean {
    const list = this.#byType.get(event.type);
    if (list === undefined) return !event.defaultPrevented;
    // The listeners at the dispatch's start: one added meanwhile waits for the next event.
    const only = list.length === 1 ? list[0] : undefined;
    if (only !== undefined) this.#call(target, only, event);
    else for (const e of list.slice()) this.#call(target, e, event);
    return !event.defaultPrevented;
  }

  #call(target: object, e: Entry, event: Event): void {
    if (e.removed) return;
    if (e.once) this.remove(event.type, e.listener, e.capture);
    try {
      if (typeof e.listener === 'function') e.listener.call(target, event);
      else e.listener.handleEvent(event);
    } catch (err) {
      this.#onError(err);
    }
  }
}
