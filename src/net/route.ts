/**
 * Reads routed over the connections nodes already hold, as in R/Kademlia's recursive routing:
 * a node hands a read to its connected peer closest to the key, which hands it on over its
 * own open connections, until a replica answers; the answer comes back along the same path.
 * A lookup instead meets most of its peers for the first time, and a new peer costs three
 * round trips before it answers (TCP, Noise, then the request): the open connections of a
 * swarm reach most keys' replicas in two or three hops (docs/BENCHMARKS.md, "Keys routed over
 * connections already open"). No part of libp2p routes a request this way: kad-dht's queries
 * are iterative only.
 *
 * A route ends where it cannot get closer: at a replica, which answers, or at a node that is
 * none and has no closer peer connected (or no hops left), which says `unrouted` and the
 * requester runs its lookup instead. Every forward gets strictly closer to the key, so a
 * route cannot loop, and its length is bounded by the requester's hops and each forwarder's
 * own bound.
 */
import type { Connection, PeerId } from '@libp2p/interface';
import type { KadDHT } from '@libp2p/kad-dht';
import { peerIdFromString } from '@libp2p/peer-id';
import { communityAddressKey } from '../keys/rehash.ts';
import { compareDistance, kadIdOfKey, kadIdOfPeer } from './closest.ts';
import {
  holdsSomething,
  type OkResponse,
  type Request,
  type Response,
  type RoutedRequest,
  type RouteRequest,
} from './codec.ts';
import { routingTableSize } from './kad-internals.ts';
import { speaksIndex } from './peer-cache.ts';
import { ok } from './server.ts';

export type RouteDht = 'profiles' | 'addresses';

interface TableInternals {
  closestPeers(kadId: Uint8Array, options?: { count?: number }): PeerId[];
}

/** Where a routed read goes: a query's key on ProfilesDHT, a community's on AddressesDHT. */
export function routeTarget(req: RoutedRequest): { dht: RouteDht; key: Uint8Array } {
  return req.t === 'query'
    ? { dht: 'profiles', key: req.key }
    : { dht: 'addresses', key: communityAddressKey(req.id) };
}

/** The answering peer a routed answer names; undefined if it names none that parses. */
export function answeredBy(res: OkResponse): PeerId | undefined {
  if (res.by === undefined) return undefined;
  try {
    return peerIdFromString(res.by);
  } catch {
    return undefined;
  }
}

/** What of a libp2p host routing reads: its id, connections, DHTs and peer store. */
export interface RouterHost {
  peerId: PeerId;
  getConnections(peer?: PeerId): Connection[];
  services: { profiles: KadDHT; addresses: KadDHT };
  peerStore: { get(peer: PeerId): Promise<{ protocols: string[] }> };
}

export interface RouterOptions {
  /** The swarm's replicas: a node among a key's this many closest answers for it. */
  replicas: number;
  /** The most forwards this node asks for or makes on a route (limits.routeHops); 0: none. */
  maxHops: number;
  /**
   * Peers of its table a forwarder with no connected peer closer to the key tries in turn,
   * closest first, dialling them if need be, before it ends the route `unrouted`
   * (limits.routeDials); 0 or unset: none.
   */
  tableDials?: number;
  /** Sends a request to a peer, one answer (an error answer throws). */
  send(peer: PeerId, req: Request): Promise<OkResponse>;
  /** Answers a read here, as the server answers a peer's. */
  answer(from: PeerId, req: RoutedRequest): Promise<Response>;
  /**
   * The fewest peers a DHT's table must hold for this node's word that nobody holds a key to
   * stand (default FULL_TABLE); below it such a read ends `unrouted`.
   */
  fullTable?: number;
}

/**
 * kad-dht's bucket size. A table that has not filled one bucket is a young node's, or a swarm
 * of a few dozen nodes at most, where tables often lack the peers around a given key: a node
 * there that counts itself a key's replica, holds nothing, and whose table's other replicas
 * hold nothing, may still have closer peers it does not know, holding the key; a lookup costs
 * little at that size (docs/BENCHMARKS.md, "Empty routed answers").
 */
export const FULL_TABLE = 20;

/** Routes reads, for this node's searches and for the peers that hand it theirs. */
export class Router {
  readonly #host: RouterHost;
  readonly #opts: RouterOptions;

  constructor(host: RouterHost, opts: RouterOptions) {
    this.#host = host;
    this.#opts = opts;
  }

  get maxHops(): number {
    return this.#opts.maxHops;
  }

  /**
   * Whether this node is among the key's replicas as its routing table has it: closer to the
   * key than the `replicas`-th closest peer the table holds. A node whose DHT runs in client
   * mode holds nothing, and one whose table cannot be read, or is that small, claims nothing.
   */
  holds(dht: RouteDht, key: Uint8Array): boolean {
    const kad = this.#host.services[dht];
    if (kad.getMode() !== 'server') return false;
    const table = this.#table(dht);
    if (table === undefined) return false;
    const target = kadIdOfKey(key);
    const closest = table.closestPeers(target, { count: this.#opts.replicas });
    // A table of fewer peers than replicas is a node that has just joined (or a swarm that
    // small): it claims nothing, and the route's requester looks the key up.
    const last = closest.at(-1);
    if (last === undefined || closest.length < this.#opts.replicas) return false;
    return compareDistance(kadIdOfPeer(this.#host.peerId), kadIdOfPeer(last), target) < 0;
  }

  /**
   * Whether this node's own table has a peer closer to the key than `peer`. A replica that
   * answers a routed read with nothing counted itself one on its own table; where that table
   * lacks the peers around the key (a young or small swarm, where tables hold a few peers each)
   * a peer closer to the key may hold what it was asked for, and the requester's table may
   * know that peer where the replica's does not.
   */
  knowsCloser(dht: RouteDht, key: Uint8Array, peer: PeerId): boolean {
    const target = kadIdOfKey(key);
    const [closest] = this.#table(dht)?.closestPeers(target, { count: 1 }) ?? [];
    return (
      closest !== undefined && compareDistance(kadIdOfPeer(closest), kadIdOfPeer(peer), target) < 0
    );
  }

  /**
   * The connected peer closest to the key, if it is closer than this node, speaks cidx as far
   * as identify told, and is not `skip`ped; a peer that fails these gives way to the next.
   */
  async next(key: Uint8Array, skip: (peer: PeerId) => boolean): Promise<PeerId | undefined> {
    const target = kadIdOfKey(key);
    const mine = kadIdOfPeer(this.#host.peerId);
    const closer: { peer: PeerId; id: Uint8Array }[] = [];
    for (const c of this.#host.getConnections()) {
      if (c.status !== 'open') continue;
      const id = kadIdOfPeer(c.remotePeer);
      if (compareDistance(id, mine, target) < 0) closer.push({ peer: c.remotePeer, id });
    }
    // Each hop of every route runs this over all of a node's connections: the closest is
    // found by one scan instead of a sort, as it nearly always passes (docs/BENCHMARKS.md).
    let left = closer;
    while (left.length > 0) {
      let best = left[0] as { peer: PeerId; id: Uint8Array };
      for (const x of left) if (compareDistance(x.id, best.id, target) < 0) best = x;
      if (!skip(best.peer) && (await this.#speaks(best.peer))) return best.peer;
      // Passed over, with every other connection to the same peer.
      const id = best.id;
      left = left.filter((x) => compareDistance(x.id, id, target) !== 0);
    }
    return undefined;
  }

  /**
   * A peer's routed request: answered here if this node holds the key, handed on to the
   * closest connected peer if hops are left — or, with none closer connected, to its table's
   * closer peers (`tableDials`) — `unrouted` otherwise or if the next hop fails.
   * A routed answer names who answered it (`by`).
   */
  async handle(from: PeerId, req: RouteRequest): Promise<Response> {
    const { dht, key } = routeTarget(req.req);
    const hops = Math.min(req.hops, this.#opts.maxHops);
    if (this.holds(dht, key)) return this.answer(from, req.req, hops);
    return this.#handOn(from, req, key, hops, dht);
  }

  /**
   * A route that its connections took as far as they go, handed on to the peers of this node's
   * table closest to the key, closer than itself — dialled if not connected, as recursive
   * Kademlia's forwarders do. Where routes stop short (past a few thousand nodes, a node's few
   * dozen connections are a small share of the swarm), the requester's lookup instead dials
   * several far peers of its own to get there; this node is near the key already, and its
   * table's closest are often the replicas. `unrouted` if none of them answers.
   */
  async #byTable(
    from: PeerId,
    req: RouteRequest,
    dht: RouteDht,
    key: Uint8Array,
    hops: number,
  ): Promise<Response> {
    const tries = this.#opts.tableDials ?? 0;
    if (tries <= 0) return unrouted();
    // A node that is no replica by its table has its `replicas` closest closer than itself;
    // the check keeps a young table's or a client's farther peers out.
    const target = kadIdOfKey(key);
    const mine = kadIdOfPeer(this.#host.peerId);
    const ahead = this.#neighbours(dht, key, this.#opts.replicas, from).filter(
      (p) => compareDistance(kadIdOfPeer(p), mine, target) < 0,
    );
    for (const peer of ahead.slice(0, tries)) {
      if (!(await this.#speaks(peer))) continue;
      try {
        const res = await this.#opts.send(peer, { ...req, hops: hops - 1 });
        if (res.outcome !== UNROUTED) return res;
      } catch {
        // Refused, gone or silent: the next one.
      }
    }
    return unrouted();
  }

  /**
   * A route handed on to the connected peer closest to the key, closer than this node and not
   * its sender, with one hop less; `unrouted` if no hops are left, no such peer is connected
   * (then, with `byTable`, after the table's closer peers: `#byTable`), or the next hop fails.
   */
  async #handOn(
    from: PeerId,
    req: RouteRequest,
    key: Uint8Array,
    hops: number,
    byTable?: RouteDht,
  ): Promise<Response> {
    if (hops <= 0) return unrouted();
    const next = await this.next(key, (p) => p.equals(from));
    if (next === undefined)
      return byTable === undefined ? unrouted() : this.#byTable(from, req, byTable, key, hops);
    try {
      return await this.#opts.send(next, { ...req, hops: hops - 1 });
    } catch {
      return unrouted();
    }
  }

  /**
   * A read this node holds the key of, answered here at once, and named as this node's (`by`).
   * A community's entry it lacks goes on first, `hops` allowing, to its connected peer closest
   * to the key, if closer than itself (`onward`). A read it holds nothing for goes on then as a
   * lookup's does after an empty answer: under churn
   * this node may have just become a replica, so the key's other replicas as its table has
   * them — its own neighbours, most often connected — are asked at once (a query with a probe,
   * the key alone, as many keys hold nothing; an AddressesDHT read as it is, an empty one being
   * rare), and the first that holds something answers in its place; if none of them answers at
   * all, the read ends `unrouted`. A community's entry is not checked against the other
   * replicas' versions (a round trip more for every search): a node that stores a new version
   * or tombstone hands it on to them instead (`spread`).
   */
  async answer(from: PeerId, req: RoutedRequest, hops = 0): Promise<Response> {
    const self = this.#host.peerId;
    const res = await this.#opts.answer(from, req);
    if (!res.ok) return res;
    const mine = { ...res, by: self.toString() };
    if (holdsSomething(res)) return mine;
    const { dht, key } = routeTarget(req);
    if (req.t === 'contacts-get' && hops > 0) {
      const further = await this.#onward(from, req, key, hops);
      if (further !== undefined) return further;
    }
    const others = this.#neighbours(dht, key, this.#opts.replicas, from);
    const ask: Request =
      req.t === 'query' ? { v: req.v, swarm: req.swarm, t: 'probe', key: req.key } : req;
    let heard = 0;
    const first = await Promise.any(
      others.map(async (peer) => {
        const theirs = await this.#opts.send(peer, ask);
        heard++;
        if (!holdsSomething(theirs)) throw new Error('holds nothing');
        return { peer, res: theirs };
      }),
    ).catch(() => undefined);
    // Nothing here, and no other replica answered at all, or a table too small to know the
    // key's neighbours: the requester looks the key up rather than take this node's word.
    if (first === undefined) return heard > 0 && this.#tableFull(dht) ? mine : unrouted();
    try {
      const held = ask === req ? first.res : await this.#opts.send(first.peer, req);
      return { ...held, by: first.peer.toString() };
    } catch {
      return mine;
    }
  }

  /**
   * A community's entry that a replica by its table lacks: its table keeps a few of the peers
   * around its own id (6 bits deep, 4 a bucket), so past a few hundred nodes the key's closer
   * peers are often missing from it, and the entry was stored with them. Its connections know
   * more of its neighbours than its table does (its join's lookup of its own id met them), and
   * a community's entry is nearly always held somewhere, so the read goes on to the connected
   * peer closest to the key, if closer than this node: its answer stands, whoever gives it, if
   * it is not `unrouted`. Every forward gets strictly closer to the key, as a route's do. Only
   * AddressesDHT reads: many query keys hold nothing, and there the closer peer's empty answer
   * would cost a forward for nothing.
   */
  async #onward(
    from: PeerId,
    req: RoutedRequest,
    key: Uint8Array,
    hops: number,
  ): Promise<Response | undefined> {
    const route: RouteRequest = { v: req.v, swarm: req.swarm, t: 'route', hops, req };
    const res = await this.#handOn(from, route, key, hops);
    return res.ok && res.outcome === UNROUTED ? undefined : res;
  }

  /**
   * Hands a community's entry this node has just stored (`contacts-put` or a tombstone's
   * `remove`, as received) on towards the key's replicas as routing tables have them, which is
   * where routed reads end. The owner's lookup can end on a set of peers slightly off the one
   * tables agree on (it stops once its closest answered; a node joined since); then reads
   * routed to a replica by its table find nothing there. A node that is a replica by its
   * table hands on to twice the replicas its table has closest, so a node that wrongly counts
   * itself one, its table missing closer peers, is reached too; one that is none, to the
   * replicas its table has (all closer to the key than itself), so the entry climbs to them.
   * Each node hands a version on only once (one it held already is not stored anew), so the
   * spread stays among the key's neighbours. In the background: the sender's answer does not
   * wait.
   */
  spread(id: string, req: Request, from: PeerId): void {
    const key = communityAddressKey(id);
    const count = this.holds('addresses', key) ? 2 * this.#opts.replicas : this.#opts.replicas;
    for (const peer of this.#neighbours('addresses', key, count, from))
      this.#opts.send(peer, req).catch(() => undefined);
  }

  /** The `count` peers the DHT's table has closest to the key, less this node and `from`. */
  #neighbours(dht: RouteDht, key: Uint8Array, count: number, from: PeerId): PeerId[] {
    const self = this.#host.peerId;
    return (
      this.#table(dht)
        ?.closestPeers(kadIdOfKey(key), { count })
        .filter((p) => !p.equals(self) && !p.equals(from)) ?? []
    );
  }

  #tableFull(dht: RouteDht): boolean {
    const size = routingTableSize(this.#host.services[dht]) ?? 0;
    return size >= (this.#opts.fullTable ?? FULL_TABLE);
  }

  #table(dht: RouteDht): TableInternals | undefined {
    // kad-dht's routing table, not in its published types (as in kad-closest.ts).
    const table = (this.#host.services[dht] as { routingTable?: Partial<TableInternals> })
      .routingTable;
    return typeof table?.closestPeers === 'function' ? (table as TableInternals) : undefined;
  }

  async #speaks(peer: PeerId): Promise<boolean> {
    return (await speaksIndex(this.#host.peerStore, peer)) !== 'no';
  }
}

/** The outcome of a route that found no replica: the requester looks the key up instead. */
export const UNROUTED = 'unrouted';

function unrouted(): Response {
  return ok({ outcome: UNROUTED });
}
