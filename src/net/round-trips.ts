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
/** Rounds of timeouts in a row multiply deadlines by 2 each, up to this (and the bound). */
const MAX_BACKOFF = 64;
/** A peer that timed out waits this many times its deadline next time, however often it did. */
export const PEER_BACKOFF = 2;

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

/** What is known of one peer: its answers, and whether its last wait ran out. */
interface PeerWaits {
  answered: Smoothed;
  missed: boolean;
}

export interface RoundTripOptions {
  /** The configured timeout: no deadline is longer. */
  boundMs: number;
  /** No deadline is shorter (default 1 s, capped at boundMs). */
  floorMs?: number;
  /** The clock that `startedAt` of `timedOut` reads (default performance.now). */
  now?: () => number;
  /**
   * No deadline is shorter than this either (default none; until something was seen, the
   * bound). Dials need it: a node whose connections its DHTs opened has timed none of its own,
   * and the first ones it makes may be to peers that stopped answering, which never give a
   * sample; the pace of the network then reaches dials from its requests.
   */
  atLeast?: () => number;
  /**
   * Whether a round of timeouts doubles every deadline (default true, Karn's rule). Not for
   * dials: a dial that runs out tells of that peer (dead or frozen, often asked again), and a
   * slower network reaches them through `atLeast`.
   */
  backoff?: boolean;
}

/**
 * Deadlines for one kind of wait (dial, request or lookup), from the durations seen.
 *
 * A node sends many waits at once (a search asks its twenty keys together), so when peers stop
 * answering, their timeouts come in bursts. Two rules keep such a burst from stretching every
 * later wait to the bound (measured: with a third of a swarm frozen, searches took the full
 * 10 s request bound before them, docs/RESULTS.md):
 * - a timeout doubles the node-wide backoff only if its wait was started after the backoff
 *   last changed: waits armed with the same deadline that run out together count once, as one
 *   retransmission timeout does in TCP;
 * - a peer's own deadline after a timeout is PEER_BACKOFF times what it would be, and stays
 *   there while it keeps timing out: a peer that answered slowly before still gets its longer
 *   deadline from its answers, while one that stopped answering costs the same each time
 *   instead of three times more.
 *
 * Better still is not to wait for such a peer: one whose last wait ran out is `missed` until
 * something is heard from it, and the node asks it after the others (Network.unresponsive).
 */
export class Deadlines {
  readonly boundMs: number;
  readonly floorMs: number;
  readonly all = new Smoothed();
  readonly #peers = new Map<string, PeerWaits>();
  readonly #now: () => number;
  readonly #atLeast: (() => number) | undefined;
  readonly #backsOff: boolean;
  /** Waits that ran out at an adaptive deadline (shorter than the bound). */
  timeouts = 0;
  /** Doubled by each round of timeouts, back to 1 at the next wait that finishes. */
  #backoff = 1;
  /** When the backoff last changed, on `now`'s clock. */
  #backoffSince = Number.NEGATIVE_INFINITY;

  constructor(o: RoundTripOptions) {
    if (!(o.boundMs > 0)) throw new RangeError(`boundMs must be more than 0, not ${o.boundMs}`);
    this.boundMs = o.boundMs;
    this.floorMs = Math.min(o.floorMs ?? DEFAULT_FLOOR_MS, o.boundMs);
    this.#now = o.now ?? (() => performance.now());
    this.#atLeast = o.atLeast;
    this.#backsOff = o.backoff ?? true;
  }

  /** How long to wait now (for `peer`, when its own estimate should count). */
  deadline(peer?: string): number {
    const own = peer === undefined ? undefined : this.#peers.get(peer);
    const est = own !== undefined && own.answered.samples > 0 ? own.answered : this.all;
    const missed = own?.missed === true ? PEER_BACKOFF : 1;
    const least = this.#atLeast?.();
    if (est.samples === 0 && least === undefined) return this.boundMs;
    const ms = est.samples === 0 ? 0 : DEADLINE_FACTOR * est.rto * this.#backoff * missed;
    return Math.min(this.boundMs, Math.max(this.floorMs, least ?? 0, ms));
  }

  /** A wait finished after `ms`. */
  done(ms: number, peer?: string): void {
    if (this.#backoff !== 1) {
      this.#backoff = 1;
      this.#backoffSince = this.#now();
    }
    this.all.add(ms);
    if (peer === undefined) return;
    const own = this.#own(peer);
    own.answered.add(ms);
    own.missed = false;
  }

  /**
   * A wait that started at `startedAt` (on `now`'s clock; unknown: it counts) ran out at
   * `deadlineMs`. As TCP does (Karn's rule), a wait that ran out is no sample: deadlines double
   * until a wait finishes again (so a network that became slower is waited for), and the peer
   * waits PEER_BACKOFF times longer next time (a slow peer gets longer).
   */
  timedOut(deadlineMs: number, peer?: string, startedAt?: number): void {
    if (deadlineMs < this.boundMs) this.timeouts++;
    if (this.#backsOff && (startedAt === undefined || startedAt >= this.#backoffSince)) {
      this.#backoff = Math.min(MAX_BACKOFF, this.#backoff * 2);
      this.#backoffSince = this.#now();
    }
    if (peer !== undefined) this.miss(peer);
  }

  /** Whether `peer`'s last wait ran out and nothing was heard from it since. */
  missed(peer: string): boolean {
    return this.#peers.get(peer)?.missed === true;
  }

  /** `peer` failed to answer other than by this kind of wait (its dial ran out): as timedOut. */
  miss(peer: string): void {
    this.#own(peer).missed = true;
  }

  /** `peer` answered something not timed here (a DHT query): it no longer counts as missed. */
  heard(peer: string): void {
    const own = this.#peers.get(peer);
    if (own !== undefined) own.missed = false;
  }

  #own(peer: string): PeerWaits {
    let p = this.#peers.get(peer);
    if (p === undefined) {
      if (this.#peers.size >= MAX_PEERS) {
        const oldest = this.#peers.keys().next().value;
        if (oldest !== undefined) this.#peers.delete(oldest);
      }
      p = { answered: new Smoothed(), missed: false };
      this.#peers.set(peer, p);
    }
    return p;
  }
}

/** What a node waits for: dials of new connections, requests on open ones, DHT lookups. */
export interface RoundTrips {
  dial: Deadlines;
  request: Deadlines;
  lookup: Deadlines;
}

/**
 * A new connection costs about twice a request on an open one: TCP's handshake, Noise's, the
 * muxer's negotiation, then the stream's — against the stream's negotiation and the exchange.
 */
export const DIAL_REQUESTS = 2;

export function roundTrips(o: { requestTimeoutMs: number; lookupTimeoutMs: number }): RoundTrips {
  const request = new Deadlines({ boundMs: o.requestTimeoutMs });
  return {
    // At least DIAL_REQUESTS requests' deadline (so the bound until a request finished).
    dial: new Deadlines({
      boundMs: o.requestTimeoutMs,
      atLeast: () => DIAL_REQUESTS * request.deadline(),
      backoff: false,
    }),
    request,
    lookup: new Deadlines({ boundMs: o.lookupTimeoutMs }),
  };
}
