import type { PeerId } from '@libp2p/interface';
import { multiaddr } from '@multiformats/multiaddr';
import { type IndexClient, RemoteError } from '../net/client.ts';
import { closestPeers, type LookupStats, type LookupStop } from '../net/closest.ts';
import {
  holdsSomething,
  type OkResponse,
  type Request,
  type RoutedRequest,
  type RouteRequest,
  WIRE_VERSION,
} from '../net/codec.ts';
import { dialableAddrs } from '../net/contact-addrs.ts';
import { deadline } from '../net/deadline.ts';
import type { CidxLibp2p } from '../net/libp2p.ts';
import { speaksIndex } from '../net/peer-cache.ts';
import type { RoundTrips } from '../net/round-trips.ts';
import { answeredBy, type Router, routeTarget, UNROUTED } from '../net/route.ts';
import type { IndexServer } from '../net/server.ts';
import type { DhtName, Network, Routed } from './network.ts';

export interface Libp2pNetworkOptions {
  /** Bound on one DHT lookup (ms). */
  lookupTimeoutMs: number;
  /**
   * Deadlines that follow the durations seen, within the configured bounds. A lookup held up by
   * a peer that stopped answering ends at its deadline, with the peers it heard of; before
   * that, a query pending longer than a dial (if no connection was open) plus a request to that
   * peer no longer holds it up (closest.ts, LookupStop), rather than for kad-dht's own timeout.
   */
  roundTrips?: RoundTrips;
  /** End a lookup once its n closest peers heard of have answered (closest.ts, LookupStop). */
  lookupConverged?: number;
  /** Routes reads over open connections (route.ts); none: every read after a lookup. */
  router?: Router;
  /** Receives the cost of every DHT lookup (the simulator meters them). */
  onLookup?: (dht: DhtName, s: LookupStats) => void;
}

/**
 * The requester's network on a libp2p host: closest peers from the named kad-dht's lookup,
 * requests through `IndexClient` (the local node's own through `IndexServer.dispatch`, with the
 * same checks a remote request gets).
 */
export class Libp2pNetwork implements Network {
  readonly #libp2p: CidxLibp2p;
  readonly #client: IndexClient;
  readonly #server: IndexServer;
  readonly #opts: Libp2pNetworkOptions;
  readonly #stop: LookupStop | undefined;

  constructor(
    libp2p: CidxLibp2p,
    client: IndexClient,
    server: IndexServer,
    opts: Libp2pNetworkOptions,
  ) {
    this.#libp2p = libp2p;
    this.#client = client;
    this.#server = server;
    this.#opts = opts;
    const w = opts.roundTrips;
    this.#stop =
      w === undefined
        ? undefined
        : {
            // A peer known to be silent is still waited for as any other: ending a lookup at
            // once without it cost precision at 1000 nodes (docs/RESULTS.md), where a busy
            // simulator makes live peers miss their deadlines.
            overdueMs: (peer) =>
              (libp2p.getConnections(peer).length > 0 ? 0 : w.dial.deadline()) +
              w.request.deadline(peer.toString()),
            // Counted as the lookup's timeouts (what `waits()` reports), without backing off
            // lookup deadlines: the lookup itself finished.
            onOverdue: (peer) => {
              w.lookup.timeouts++;
              w.request.miss(peer.toString());
            },
            onAnswer: (peer) => w.request.heard(peer.toString()),
            converged: opts.lookupConverged ?? 0,
          };
  }

  get self(): PeerId {
    return this.#libp2p.peerId;
  }

  /** The addresses others can dial (contact-addrs.ts): relay ones behind a NAT. */
  addrs(): string[] {
    return dialableAddrs(this.ownAddrs(), this.#libp2p.services.reachability.dhtMode);
  }

  ownAddrs(): string[] {
    return this.#libp2p.getMultiaddrs().map(String);
  }

  async closestPeers(
    dht: DhtName,
    key: Uint8Array,
    onHeard?: (peers: PeerId[]) => void,
    signal?: AbortSignal,
  ): Promise<PeerId[]> {
    const lookups = this.#opts.roundTrips?.lookup;
    const ms = lookups?.deadline() ?? this.#opts.lookupTimeoutMs;
    const limit = deadline(ms, signal);
    const onStats = this.#opts.onLookup;
    const t0 = performance.now();
    let peers: PeerId[];
    try {
      peers = await closestPeers(
        this.#libp2p.services[dht],
        this.#libp2p.peerId,
        key,
        limit.signal,
        onStats === undefined ? undefined : (st) => onStats(dht, st),
        onHeard,
        this.#stop,
      );
      // Ended by the caller: neither a round trip's measure nor a timeout.
      if (signal?.aborted === true && limit.signal.reason === signal.reason) return peers;
      if (limit.signal.aborted) lookups?.timedOut(ms, undefined, t0);
      else lookups?.done(performance.now() - t0);
    } finally {
      limit.clear();
    }
    const out: PeerId[] = [];
    for (const p of peers) {
      if (!p.equals(this.#libp2p.peerId) && (await this.#knownNotToSpeak(p))) continue;
      out.push(p);
    }
    return out;
  }

  async route(req: RoutedRequest, signal?: AbortSignal): Promise<Routed | undefined> {
    const router = this.#opts.router;
    if (router === undefined || router.maxHops === 0) return undefined;
    const { dht, key } = routeTarget(req);
    const self = this.#libp2p.peerId;
    if (router.holds(dht, key)) {
      const res = await router.answer(self, req, router.maxHops).catch(() => undefined);
      if (res?.ok !== true || res.outcome === UNROUTED) return { via: self };
      const by = answeredBy(res) ?? self;
      // Nothing here nor at the replicas this node's table has: its claim to be one rests on
      // that table alone, which right after a join lacks peers, and then the key's holders are
      // none of those asked. The key is looked up; a searcher is a replica of few of its keys.
      if (by.equals(self) && !holdsSomething(res)) return { via: self };
      return { via: self, answer: { peer: by, res } };
    }
    const next = await router.next(key, (p) => this.unresponsive(p));
    if (next === undefined) return undefined;
    const route: RouteRequest = {
      v: WIRE_VERSION,
      swarm: req.swarm,
      t: 'route',
      hops: router.maxHops - 1,
      req,
    };
    try {
      const res = await this.#client.request(next, route, signal);
      if (res.outcome === UNROUTED) return { via: next };
      const by = answeredBy(res) ?? next;
      // Nothing, from a peer farther from the key than one this node's table has: the answerer
      // took itself for a replica on a table without the key's closer peers, so the key is
      // looked up. Rare where tables are full: a replica is among the key's closest.
      if (!holdsSomething(res) && router.knowsCloser(dht, key, by)) return { via: next };
      return { via: next, answer: { peer: by, res } };
    } catch {
      return { via: next };
    }
  }

  unresponsive(peer: PeerId): boolean {
    return this.#opts.roundTrips?.request.missed(peer.toString()) === true;
  }

  async send(peer: PeerId, req: Request): Promise<OkResponse> {
    if (peer.equals(this.#libp2p.peerId)) {
      const res = await this.#server.dispatch(peer, req);
      if (!res.ok) throw new RemoteError(res.code, res.msg, res.params);
      return res;
    }
    return this.#client.request(peer, req);
  }

  async sendToAddr(addr: string, req: Request): Promise<OkResponse> {
    const ma = multiaddr(addr);
    const peer = ma.getComponents().findLast((c) => c.name === 'p2p')?.value;
    if (peer !== undefined && peer === this.#libp2p.peerId.toString())
      return this.send(this.#libp2p.peerId, req);
    return this.#client.request(ma, req);
  }

  /** Identify told us the peer's protocols and ours is not among them (e.g. a plain DHT peer). */
  async #knownNotToSpeak(peer: PeerId): Promise<boolean> {
    return (await speaksIndex(this.#libp2p.peerStore, peer)) === 'no';
  }
}
