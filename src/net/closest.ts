import { createHash } from 'node:crypto';
import type { PeerId } from '@libp2p/interface';
import type { KadDHT } from '@libp2p/kad-dht';

// Kademlia ids as kad-dht computes them: SHA-256 of the key, SHA-256 of the peer id multihash.
// By PeerId object first: a route's every hop asks for those of all of a node's connections,
// whose peers are the same objects from one hop to the next, and a string key costs its
// comparison on every hit (docs/BENCHMARKS.md).
const peerIds = new Map<string, Uint8Array>();
const byObject = new WeakMap<PeerId, Uint8Array>();

export function kadIdOfKey(key: Uint8Array): Uint8Array {
  return createHash('sha256').update(key).digest();
}

export function kadIdOfPeer(peer: PeerId): Uint8Array {
  let id = byObject.get(peer);
  if (id !== undefined) return id;
  const s = peer.toString();
  id = peerIds.get(s);
  if (id === undefined) {
    id = createHash('sha256').update(peer.toMultihash().bytes).digest();
    if (peerIds.size > 100_000) peerIds.clear();
    peerIds.set(s, id);
  }
  byObject.set(peer, id);
  return id;
}

/** Compares the XOR distances of a and b to target: negative when a is closer. */
export function compareDistance(a: Uint8Array, b: Uint8Array, target: Uint8Array): number {
  for (let i = 0; i < target.length; i++) {
    const da = (a[i] as number) ^ (target[i] as number);
    const db = (b[i] as number) ^ (target[i] as number);
    if (da !== db) return da - db;
  }
  return 0;
}

/**
 * The XOR distance of a peer to `key` as a fraction of the id space, from the first 64 bits
 * (plenty for any swarm distances are compared in); the key is hashed once.
 */
export function distanceFrom(key: Uint8Array): (peer: PeerId) => number {
  const b = kadIdOfKey(key);
  return (peer) => {
    const a = kadIdOfPeer(peer);
    let hi = 0;
    let lo = 0;
    for (let i = 0; i < 4; i++) hi = hi * 256 + ((a[i] as number) ^ (b[i] as number));
    for (let i = 4; i < 8; i++) lo = lo * 256 + ((a[i] as number) ^ (b[i] as number));
    return (hi * 2 ** 32 + lo) / 2 ** 64;
  };
}

/** Sorts peers by XOR distance to the key, closest first (duplicates removed). */
export function sortByDistance(peers: Iterable<PeerId>, key: Uint8Array): PeerId[] {
  const target = kadIdOfKey(key);
  const seen = new Map<string, PeerId>();
  for (const p of peers) seen.set(p.toString(), p);
  return [...seen.values()].sort((a, b) => compareDistance(kadIdOfPeer(a), kadIdOfPeer(b), target));
}

/** What one lookup cost: queries sent, the depth of the path to the closest peer, time. */
export interface LookupStats {
  messages: number;
  hops: number;
  ms: number;
  /** The peers it ended with (kad-dht's final ones, those that answered, or those heard of). */
  found: number;
}

/**
 * When a lookup may end before kad-dht's own end. kad-dht ends a lookup only when every query
 * it sent has answered, failed or reached its own timeout (at least 5 s, and it includes the
 * dial): a peer that stopped answering holds every lookup that queries it for that long. Here a
 * query pending longer than `overdueMs(peer)` (from the node's round trips, src/net/round-
 * trips.ts) is given up on: once every query still pending is overdue, the lookup ends with what
 * the others answered, as if those queries had failed.
 */
export interface LookupStop {
  /** How long a query to `peer`, from its dial, may take before it is given up on. */
  overdueMs: (peer: PeerId) => number;
  /** A query to `peer` was given up on (the lookup ends without it). */
  onOverdue?: (peer: PeerId) => void;
  /** `peer` answered a query of the lookup. */
  onAnswer?: (peer: PeerId) => void;
  /**
   * Kademlia's own end: once the `converged` closest peers the lookup has heard of (those that
   * failed or were given up on left out) have all answered, it ends, without waiting for its
   * queries to farther peers. kad-dht ends each of its disjoint paths on its own closest peers
   * and waits for every query in flight, so a lookup lasted as long as its slowest path's
   * farthest query — often a new connection to a far peer (docs/RESULTS.md). 0 or unset: off.
   */
  converged?: number;
}

/**
 * The peers closest to a key as the DHT's iterative lookup finds them, plus the local node,
 * closest first. The local node counts while its DHT serves: a swarm of one, or a node whose
 * neighbours are all gone, still stores and answers for every key; a node in client mode (it
 * cannot be dialled) is in nobody's routing table and holds no key. If the lookup times out
 * before it finishes, the peers it heard of on the way are used. With `stop`, the lookup ends
 * as LookupStop says, with the peers that answered. `onStats` receives the lookup's cost: hops
 * are counted as the number of responses on the path from our routing table to the final
 * closest peer. `onHeard` receives, while the lookup runs, the peers it queries (from our
 * routing table first) and the closer ones they tell of: a caller may start on the closest so
 * far before the lookup ends.
 */
export async function closestPeers(
  dht: KadDHT,
  self: PeerId,
  key: Uint8Array,
  signal: AbortSignal,
  onStats?: (s: LookupStats) => void,
  onHeard?: (peers: PeerId[]) => void,
  stop?: LookupStop,
): Promise<PeerId[]> {
  const started = Date.now();
  const final: PeerId[] = [];
  const heard: PeerId[] = [];
  const depth = new Map<string, number>();
  const ender = stop === undefined ? undefined : new LookupEnder(stop, self, distanceFrom(key));
  const lookup = ender === undefined ? signal : AbortSignal.any([signal, ender.signal]);
  let messages = 0;
  try {
    for await (const ev of dht.getClosestPeers(key, { signal: lookup })) {
      if (ev.name === 'DIAL_PEER') ender?.dialled(ev.peer);
      else if (ev.name === 'QUERY_ERROR') ender?.failed(ev.from);
      else if (ev.name === 'SEND_QUERY') {
        messages++;
        if (!depth.has(ev.to.toString())) depth.set(ev.to.toString(), 1);
        ender?.heard(ev.to);
        onHeard?.([ev.to]);
      } else if (ev.name === 'FINAL_PEER') final.push(ev.peer.id);
      else if (ev.name === 'PEER_RESPONSE') {
        const d = (depth.get(ev.from.toString()) ?? 1) + 1;
        for (const p of ev.closer) {
          heard.push(p.id);
          ender?.heard(p.id);
          const k = p.id.toString();
          if ((depth.get(k) ?? Number.POSITIVE_INFINITY) > d) depth.set(k, d);
        }
        if (ev.closer.length > 0) onHeard?.(ev.closer.map((p) => p.id));
        ender?.answered(ev.from);
      }
    }
  } catch (err) {
    if (!lookup.aborted) throw err;
  } finally {
    ender?.clear();
  }
  const found = ender?.ended === true ? ender.result() : final.length > 0 ? final : heard;
  const sorted = sortByDistance(dht.getMode() === 'server' ? [self, ...found] : found, key);
  if (onStats) {
    const closest = sorted.find((p) => !p.equals(self));
    const hops = closest === undefined ? 0 : (depth.get(closest.toString()) ?? 1);
    onStats({ messages, hops, ms: Date.now() - started, found: found.length });
  }
  return sorted;
}

class LookupEnded extends Error {
  override name = 'LookupEnded';
}

/**
 * The queries of one lookup: when each pending one becomes overdue, which answered, which
 * failed. It looks again, on one timer, at the moment every query then pending is overdue —
 * never at an event itself, so the dials kad-dht starts on an answer are seen first — and then
 * aborts `signal`. It ends only after some peer answered: with none, kad-dht's own timeouts
 * and the lookup deadline decide.
 */
class LookupEnder {
  readonly #stop: LookupStop;
  readonly #controller = new AbortController();
  /** Queries pending: peer id → the peer and when it is overdue (performance.now()). */
  readonly #pending = new Map<string, { peer: PeerId; at: number }>();
  readonly #given = new Set<string>();
  readonly #answered = new Map<string, PeerId>();
  /** Every peer the lookup heard of but the node itself: id → distance to the key. */
  readonly #heard = new Map<string, number>();
  readonly #self: PeerId;
  readonly #distance: (peer: PeerId) => number;
  /** `LookupStop.converged`: 0 when off. */
  readonly #converge: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the armed timer fires (performance.now()). */
  #timerAt = Number.NaN;
  ended = false;

  constructor(stop: LookupStop, self: PeerId, distance: (peer: PeerId) => number) {
    this.#stop = stop;
    this.#self = self;
    this.#distance = distance;
    this.#converge = stop.converged ?? 0;
  }

  /** The lookup heard of `peer` (it is queried, or an answer named it). */
  heard(peer: PeerId): void {
    if (this.#converge <= 0) return; // only the converged end reads them
    const id = peer.toString();
    if (this.#heard.has(id) || peer.equals(this.#self)) return;
    this.#heard.set(id, this.#distance(peer));
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** kad-dht is about to dial `peer` (or open a stream on its connection): its clock starts. */
  dialled(peer: PeerId): void {
    const id = peer.toString();
    if (this.#pending.has(id) || this.#answered.has(id)) return;
    this.#pending.set(id, { peer, at: performance.now() + this.#stop.overdueMs(peer) });
    this.#arm();
  }

  answered(peer: PeerId): void {
    this.#stop.onAnswer?.(peer);
    const id = peer.toString();
    this.#pending.delete(id);
    this.#answered.set(id, peer);
    if (this.#converged()) this.#end();
    else this.#arm();
  }

  failed(peer: PeerId): void {
    this.#pending.delete(peer.toString());
    this.#given.add(peer.toString());
    if (this.#converged()) this.#end();
    else this.#arm();
  }

  /** Whether the `converged` closest peers heard of, less those failed, have all answered. */
  #converged(): boolean {
    const k = this.#converge;
    if (k <= 0 || this.ended || this.#answered.size < k) return false;
    // A lookup hears of a few dozen peers: sorting them all on each answer costs nothing.
    const closest = [...this.#heard]
      .filter(([id]) => !this.#given.has(id))
      .sort((a, b) => a[1] - b[1])
      .slice(0, k);
    return closest.length === k && closest.every(([id]) => this.#answered.has(id));
  }

  /** Ends the lookup now: queries still pending are left, not counted as given up on. */
  #end(): void {
    this.clear();
    this.#pending.clear();
    this.ended = true;
    this.#controller.abort(new LookupEnded());
  }

  /** The peers that answered (kad-dht's own result holds only those), less those given up on. */
  result(): PeerId[] {
    return [...this.#answered].filter(([id]) => !this.#given.has(id)).map(([, p]) => p);
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#timerAt = Number.NaN;
  }

  /** The timer at the moment the last pending query is overdue; kept if already there. */
  #arm(): void {
    if (this.ended || this.#pending.size === 0 || this.#answered.size === 0) {
      this.clear();
      return;
    }
    let last = 0;
    for (const q of this.#pending.values()) last = Math.max(last, q.at);
    if (last === this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timerAt = last;
    this.#timer = setTimeout(() => this.#check(), Math.max(0, last - performance.now()));
  }

  #check(): void {
    this.#timerAt = Number.NaN;
    const now = performance.now();
    if ([...this.#pending.values()].some((q) => q.at > now)) {
      this.#arm();
      return;
    }
    for (const [id, q] of this.#pending) {
      this.#given.add(id);
      this.#stop.onOverdue?.(q.peer);
    }
    this.#pending.clear();
    this.ended = true;
    this.#controller.abort(new LookupEnded());
  }
}
