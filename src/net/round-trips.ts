/**
 * How long to wait, from what this node has seen: deadlines for dials, requests and lookups that
 * follow the round trips the node observes, so that a swarm whose round trips are 300 ms is
 * waited for while a peer that stopped answering is given up on after a few of them. The
 * configured timeouts stay upper bounds (and are used as they are until something was seen).
 *
 * Each kind of wait keeps a smoothed duration and its mean deviation as TCP does for its
 * retransmission timer (RFC 6298: SRTT, RTTVAR, RTO = SRTT + 4·RTTVAR); the deadline is a few
 * times that RTO. Requests also keep one estimate per peer, so a far peer that answered before
 * gets its own longer deadline. Written here rather than taken from @libp2p/utils'
 * AdaptiveTimeout (which kad-dht uses for its queries): that one keeps a single moving average
 * weighted by elapsed time — samples ending in the same millisecond do not move it, and a burst
 * of answers barely counts — and arms an AbortSignal.timeout per request that lives until it
 * fires (see deadline.ts).
 */

/** RFC 6298's gains: SRTT moves 1/8 towards each sample, RTTVAR 1/4. */
const ALPHA = 1 / 8;
const BETA = 1 / 4;
/** A deadline is this many RTOs: a blackholed peer costs about three expected waits. */
export const DEADLINE_FACTOR = 3;
/** Never less: one event-loop stall or GC pause must not fail a live peer (TCP's minimum RTO). */
export const DEFAULT_FLOOR_MS = 1000;
/** Peers whose own estimate is kept; the oldest is forgotten first. */
const MAX_PEERS = 4096;
/** Timeouts in a row multiply deadlines by 2 each, up to this (and the bound). */
const MAX_BACKOFF = 64;

/** A smoothed duration and its mean deviation (RFC 6298 §2). */
export class Smoothed {
  srtt = 0;
  rttvar = 0;
  samples = 0;

  add(ms: number): void {
    if (this.samples++ === 0) {
      this.srtt = ms;
      this.rttvar = ms / 2;
      return;
    }
    this.rttvar = (1 - BETA) * this.rttvar + BETA * Math.abs(this.srtt - ms);
    this.srtt = (1 - ALPHA) * this.srtt + ALPHA * ms;
  }

  /** The time after which a wait is overdue (RTO = SRTT + 4·RTTVAR). */
  get rto(): number {
    return this.srtt + 4 * this.rttvar;
  }
}

export interface RoundTripOptions {
  /** The configured timeout: no deadline is longer. */
  boundMs: number;
  /** No deadline is shorter (default 1 s, capped at boundMs). */
  floorMs?: number;
}

/** Deadlines for one kind of wait (dial, request or lookup), from the durations seen. */
export class Deadlines {
  readonly boundMs: number;
  readonly floorMs: number;
  readonly all = new Smoothed();
  readonly #peers = new Map<string, Smoothed>();
  /** Waits that ran out at an adaptive deadline (shorter than the bound). */
  timeouts = 0;
  /** Doubled by each timeout, back to 1 at the next wait that finishes. */
  #backoff = 1;

  constructor(o: RoundTripOptions) {
    if (!(o.boundMs > 0)) throw new RangeError(`boundMs must be more than 0, not ${o.boundMs}`);
    this.boundMs = o.boundMs;
    this.floorMs = Math.min(o.floorMs ?? DEFAULT_FLOOR_MS, o.boundMs);
  }

  /** How long to wait now (for `peer`, when its own estimate should count). */
  deadline(peer?: string): number {
    const own = peer === undefined ? undefined : this.#peers.get(peer);
    const est = own !== undefined && own.samples > 0 ? own : this.all;
    if (est.samples === 0) return this.boundMs;
    const ms = DEADLINE_FACTOR * est.rto * this.#backoff;
    return Math.min(this.boundMs, Math.max(this.floorMs, ms));
  }

  /** A wait finished after `ms`. */
  done(ms: number, peer?: string): void {
    this.#backoff = 1;
    this.all.add(ms);
    if (peer !== undefined) this.#own(peer).add(ms);
  }

  /**
   * A wait ran out at `deadlineMs`. As TCP does (Karn's rule), a wait that ran out is no
   * sample: every deadline doubles until a wait finishes again (so a network that became
   * slower is waited for, while a dead peer now and then costs one longer wait), and the
   * peer's own estimate starts at least there (a slow peer gets longer next time).
   */
  timedOut(deadlineMs: number, peer?: string): void {
    if (deadlineMs < this.boundMs) this.timeouts++;
    this.#backoff = Math.min(MAX_BACKOFF, this.#backoff * 2);
    if (peer === undefined) return;
    const own = this.#own(peer);
    own.srtt = Math.max(own.srtt, deadlineMs);
    own.samples = Math.max(own.samples, 1);
  }

  #own(peer: string): Smoothed {
    let s = this.#peers.get(peer);
    if (s === undefined) {
      if (this.#peers.size >= MAX_PEERS) {
        const oldest = this.#peers.keys().next().value;
        if (oldest !== undefined) this.#peers.delete(oldest);
      }
      s = new Smoothed();
      this.#peers.set(peer, s);
    }
    return s;
  }
}

/** What a node waits for: dials of new connections, requests on open ones, DHT lookups. */
export interface RoundTrips {
  dial: Deadlines;
  request: Deadlines;
  lookup: Deadlines;
}

export function roundTrips(o: { requestTimeoutMs: number; lookupTimeoutMs: number }): RoundTrips {
  return {
    dial: new Deadlines({ boundMs: o.requestTimeoutMs }),
    request: new Deadlines({ boundMs: o.requestTimeoutMs }),
    lookup: new Deadlines({ boundMs: o.lookupTimeoutMs }),
  };
}
