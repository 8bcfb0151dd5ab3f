import type { PeerId } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { multiaddr } from '@multiformats/multiaddr';
import { type IndexClient, RemoteError } from '../net/client.ts';
import { closestPeers, type LookupStats } from '../net/closest.ts';
import { INDEX_PROTOCOL, type OkResponse, type Request } from '../net/codec.ts';
import { deadline } from '../net/deadline.ts';
import type { CidxLibp2p } from '../net/libp2p.ts';
import type { IndexServer } from '../net/server.ts';
import { NetworkError, SwarmMismatchError } from './errors.ts';

export type DhtName = 'profiles' | 'addresses';

export interface Answer {
  peer: PeerId;
  res: OkResponse;
}

export interface RouterOptions {
  lookupTimeoutMs: number;
  /** Reuse a key's lookup result this long (ms); 0 disables the cache. */
  closestCacheMs: number;
  now(): number;
  /** Our swarm parameters, quoted in a mismatch error. */
  swarmParams: unknown;
  /** Receives the cost of every DHT lookup (the simulator meters them). */
  onLookup?: (dht: DhtName, s: LookupStats) => void;
}

/**
 * Sends requests to the peers responsible for a key: the closest ones by the named DHT's
 * lookup, the local node included (answered in-process, through the same server checks).
 * A peer that fails, times out, does not speak the cidx protocol or runs other swarm parameters
 * is skipped for the next closest one.
 */
export class Router {
  readonly #libp2p: CidxLibp2p;
  readonly #client: IndexClient;
  readonly #server: IndexServer;
  readonly #opts: RouterOptions;
  /** Peers that answered with other swarm parameters: never asked again. */
  readonly #foreign = new Set<string>();
  /**
   * Recent lookup results by DHT and key. A lookup costs a round of queries through the swarm;
   * an operation that touches the same keys again soon (search after create, join after search)
   * reuses it. An entry is dropped as soon as one of its peers fails.
   */
  readonly #cache = new Map<string, { peers: PeerId[]; expires: number }>();

  constructor(libp2p: CidxLibp2p, client: IndexClient, server: IndexServer, opts: RouterOptions) {
    this.#libp2p = libp2p;
    this.#client = client;
    this.#server = server;
    this.#opts = opts;
  }

  /** Never ask this peer again: it runs other swarm parameters. */
  markForeign(peer: PeerId): void {
    this.#foreign.add(peer.toString());
    this.#cache.clear();
  }

  /** The peers responsible for a key, closest first, the local node among them. */
  async candidates(dht: DhtName, key: Uint8Array, signal?: AbortSignal): Promise<PeerId[]> {
    const cacheKey = `${dht}:${Buffer.from(key).toString('base64')}`;
    const hit = this.#cache.get(cacheKey);
    let peers: PeerId[];
    if (hit !== undefined && hit.expires > this.#opts.now()) {
      peers = hit.peers;
    } else {
      const limit = deadline(this.#opts.lookupTimeoutMs, signal);
      const onStats = this.#opts.onLookup;
      try {
        peers = await closestPeers(
          this.#libp2p.services[dht],
          this.#libp2p.peerId,
          key,
          limit.signal,
          onStats === undefined ? undefined : (st) => onStats(dht, st),
        );
      } finally {
        limit.clear();
      }
      if (this.#opts.closestCacheMs > 0) {
        this.#remember(cacheKey, peers);
      }
    }
    const out: PeerId[] = [];
    for (const p of peers) {
      if (this.#foreign.has(p.toString())) continue;
      if (!p.equals(this.#libp2p.peerId) && (await this.#knownNotToSpeak(p))) continue;
      out.push(p);
    }
    return out;
  }

  /**
   * Asks the closest peers of `key`, in order, until `want` of them answered (fewer if fewer
   * exist). `enough` may stop early (e.g. a read that found its record). With `counts`, only
   * answers it accepts count towards `want`, and at most `maxPeers` peers are asked: a search
   * passes on from a peer that answered empty-handed (a node that just took over the key and
   * holds nothing yet) to the next replica; `next`, when given, is the request those later
   * peers get instead of `req` (e.g. a cheap probe). Throws NetworkError when nobody answered,
   * SwarmMismatchError when everyone who answered runs other parameters.
   */
  async ask(
    dht: DhtName,
    key: Uint8Array,
    req: Request,
    want: number,
    enough: (answers: Answer[]) => boolean = () => false,
    opts: {
      counts?: (a: Answer) => boolean;
      maxPeers?: number;
      next?: Request;
      /** Told of every request sent (the search meters how its requests spread over peers). */
      onSend?: (peer: PeerId, req: Request) => void;
    } = {},
  ): Promise<Answer[]> {
    const all = await this.candidates(dht, key);
    const peers = opts.maxPeers === undefined ? all : all.slice(0, opts.maxPeers);
    const counts = opts.counts ?? (() => true);
    const cacheKey = `${dht}:${Buffer.from(key).toString('base64')}`;
    const answers: Answer[] = [];
    let useful = 0;
    let mismatch: unknown;
    let lastError: unknown;
    let next = 0;
    while (useful < want && next < peers.length && !enough(answers)) {
      const batch = peers.slice(next, next + (want - useful));
      const sent = next === 0 ? req : (opts.next ?? req);
      next += batch.length;
      for (const p of batch) opts.onSend?.(p, sent);
      const results = await Promise.allSettled(batch.map((p) => this.send(p, sent)));
      results.forEach((r, i) => {
        if (r.status === 'fulfilled') {
          const a = { peer: batch[i] as PeerId, res: r.value };
          answers.push(a);
          if (counts(a)) useful++;
        } else if (r.reason instanceof RemoteError && r.reason.code === 'swarm-mismatch') {
          this.#foreign.add((batch[i] as PeerId).toString());
          mismatch = r.reason.params;
          this.#cache.delete(cacheKey);
        } else {
          lastError = r.reason;
          this.#cache.delete(cacheKey);
        }
      });
    }
    const remote = answers.filter((a) => !a.peer.equals(this.#libp2p.peerId)).length;
    // Only other-parameter peers around (or only ourselves answering among them): this node is
    // in the wrong swarm, and its own answers alone would pass for the swarm's.
    if (mismatch !== undefined && remote === 0 && lastError === undefined) {
      throw new SwarmMismatchError(this.#opts.swarmParams, mismatch);
    }
    if (answers.length === 0) {
      throw new NetworkError(
        `no peer answered a ${req.t} request (${peers.length} tried)${lastError ? `: ${(lastError as Error).message}` : ''}`,
      );
    }
    return answers;
  }

  /**
   * Sends the request to the listed peers (ids) that are not among `already`, in parallel;
   * returns the answers of those that answered. Failures are skipped.
   */
  async sendToOthers(peers: string[], already: Answer[], req: Request): Promise<Answer[]> {
    const asked = new Set(already.map((a) => a.peer.toString()));
    const others = peers.filter((p) => !asked.has(p) && !this.#foreign.has(p));
    const results = await Promise.allSettled(
      others.map(async (p) => {
        const peer = peerIdFromString(p);
        return { peer, res: await this.send(peer, req) };
      }),
    );
    return results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  }

  /** One request to the peer a contact address names, dialled at that address. */
  async sendToAddr(addr: string, req: Request): Promise<OkResponse> {
    const ma = multiaddr(addr);
    const peer = ma.getComponents().findLast((c) => c.name === 'p2p')?.value;
    if (peer !== undefined && peer === this.#libp2p.peerId.toString())
      return this.send(this.#libp2p.peerId, req);
    return this.#client.request(ma, req);
  }

  /** One request to one peer (in-process for the local node). */
  async send(peer: PeerId, req: Request): Promise<OkResponse> {
    if (peer.equals(this.#libp2p.peerId)) {
      const res = await this.#server.dispatch(peer, req);
      if (!res.ok) throw new RemoteError(res.code, res.msg, res.params);
      return res;
    }
    return this.#client.request(peer, req);
  }

  /** Caches a lookup result; expired entries go first, and the cache never exceeds 1024 keys. */
  #remember(cacheKey: string, peers: PeerId[]): void {
    const now = this.#opts.now();
    if (this.#cache.size >= 1024) {
      for (const [k, v] of this.#cache) if (v.expires <= now) this.#cache.delete(k);
      while (this.#cache.size >= 1024)
        this.#cache.delete(this.#cache.keys().next().value as string);
    }
    this.#cache.set(cacheKey, { peers, expires: now + this.#opts.closestCacheMs });
  }

  /** Identify told us the peer's protocols and ours is not among them (e.g. a plain DHT peer). */
  async #knownNotToSpeak(peer: PeerId): Promise<boolean> {
    try {
      const p = await this.#libp2p.peerStore.get(peer);
      return p.protocols.length > 0 && !p.protocols.includes(INDEX_PROTOCOL);
    } catch {
      return false;
    }
  }
}
