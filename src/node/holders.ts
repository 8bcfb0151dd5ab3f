/**
 * The requester's policy for reaching the holders of a key, in one place: which peers to ask
 * (the closest ones, less peers of other swarms), failover to the next replica when one fails,
 * a probe instead of the query after an empty answer, the query again to a replica that holds
 * something, a brief answer asked again in full, and when to stop. Built on `Network`, so the
 * same policy runs over libp2p and in memory.
 */
import type { PeerId } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { RemoteError } from '../net/client.ts';
import { distanceFrom } from '../net/closest.ts';
import {
  holdsSomething,
  type OkResponse,
  type Request,
  type RoutedRequest,
  WIRE_VERSION,
  type WireSigned,
} from '../net/codec.ts';
import { ClosestCache } from './closest-cache.ts';
import { NetworkError, SwarmMismatchError } from './errors.ts';
import type { DhtName, Network } from './network.ts';
import { readAhead } from './read-ahead.ts';
import { ClosestDistance } from './swarm-size.ts';

export interface Answer {
  peer: PeerId;
  res: OkResponse;
}

/** One request sent: to whom, of which type, and when (in the order this node sent them). */
export interface Sent {
  peer: PeerId;
  t: Request['t'];
  seq: number;
}

/** What asking the holders of a key gave: the answers, and every request it sent. */
export interface Asked {
  answers: Answer[];
  sent: Sent[];
  /** The answers came from a read routed over open connections, without a lookup. */
  routed?: boolean;
}

export interface AskOptions {
  /** How many of the closest peers must answer (fewer if fewer exist); failed ones are replaced. */
  replicas: number;
  /** Asks no further peer once the answers hold what the caller needs (a read that found it). */
  until?: (answers: readonly Answer[]) => boolean;
  /** Peers (ids) known to hold the key's record from before: sent the request too, unless they answered already. */
  alsoAsk?: readonly string[];
  /**
   * A read: sent ahead, while the lookup runs, to the closest peers heard of so far; an answer
   * is used only from a peer the lookup then finds among the closest (see `readAhead`).
   */
  speculate?: boolean;
  /**
   * A shorter form of the request for every peer but the closest, in the same round (a read's
   * versions instead of its records): the caller asks in full a peer whose brief answer it
   * needs.
   */
  brief?: Request;
  /**
   * With `brief`: an answer in full that holds what was asked. Once one went ahead and came
   * back holding it, what still goes ahead, and the first round, is brief.
   */
  held?: (res: OkResponse) => boolean;
}

export interface QueryOptions {
  /** How many replicas must answer with something (fewer if fewer exist). */
  replicas: number;
  /** Peers asked at most, closest first, probes included. */
  maxPeers: number;
  /** Drops the key: its lookup ends, nothing more is sent for it, and the ask throws. */
  signal?: AbortSignal;
}

export type QueryRequest = Extract<Request, { t: 'query' }>;

/**
 * Who gave a brief answer and to which request. Claims from one answer share it, so the
 * answer is asked again in full at most once (`Holders.askInFull`).
 */
export interface AnswerSource {
  peer: PeerId;
  req: Request;
  full?: Promise<WireSigned[]>;
}

export interface HoldersOptions {
  /** Reuse a key's closest peers this long (ms); 0 disables the cache. */
  closestCacheMs: number;
  now(): number;
  /** Our swarm parameters, quoted in a mismatch error. */
  swarmParams: unknown;
  /**
   * Reads sent ahead during one lookup, per answer wanted (the closest so far changes a few
   * times); 0: none (`limits.readsAhead`).
   */
  readsAhead: number;
  /**
   * Reads ahead in full only to peers within this many times the expected distance of the
   * closest answers wanted (ClosestDistance); 0: to any (`limits.aheadRadius`).
   */
  aheadRadius?: number;
}

export class Holders {
  readonly #network: Network;
  readonly #opts: HoldersOptions;
  /** Peers that answered with other swarm parameters: never asked again. */
  readonly #foreign = new Set<string>();
  /** Recent lookup results; an entry is dropped as soon as one of its peers fails. */
  readonly #cache: ClosestCache;
  /** How far a key's closest peers are, from this node's lookups (both DHTs: the same nodes). */
  readonly #closest = new ClosestDistance();
  #seq = 0;

  constructor(network: Network, opts: HoldersOptions) {
    this.#network = network;
    this.#opts = opts;
    this.#cache = new ClosestCache(opts.closestCacheMs, opts.now);
  }

  get self(): PeerId {
    return this.#network.self;
  }

  /**
   * A lookup's result, closest first (one not run through `candidates`: the join's): what it
   * tells of how far a key's closest peers are.
   */
  recordLookup(key: Uint8Array, closest: readonly PeerId[]): void {
    const distance = distanceFrom(key);
    this.#closest.record(closest.slice(0, ClosestDistance.RANKS).map(distance));
  }

  /** The swarm's size as this node's lookups estimate it (ClosestDistance); none before any. */
  swarmSize(): number | undefined {
    return this.#closest.swarmSize();
  }

  /** The addresses others can dial this node at (empty behind a NAT before a relay). */
  addrs(): string[] {
    return this.#network.addrs();
  }

  /** Every address this node has. */
  ownAddrs(): string[] {
    return this.#network.ownAddrs();
  }

  /** Never ask this peer again: it runs other swarm parameters. */
  markForeign(peer: PeerId): void {
    this.#foreign.add(peer.toString());
    this.#cache.clear();
  }

  /**
   * The peers responsible for a key, closest first, the local node among them. `onHeard` gets
   * the peers a lookup hears of while it runs (nothing when the cache answers). Once `signal`
   * aborts, the lookup ends and this throws its reason: what it had is no key's closest.
   */
  async candidates(
    dht: DhtName,
    key: Uint8Array,
    onHeard?: (peers: PeerId[]) => void,
    signal?: AbortSignal,
  ): Promise<PeerId[]> {
    let peers = this.#cache.get(dht, key);
    if (peers === undefined) {
      signal?.throwIfAborted();
      peers = await this.#network.closestPeers(dht, key, onHeard, signal);
      signal?.throwIfAborted();
      this.#cache.set(dht, key, peers);
      this.recordLookup(key, peers);
    }
    return peers.filter((p) => !this.#foreign.has(p.toString()));
  }

  /**
   * Sends `req` to the closest peers of `key`, in order, until `replicas` of them answered or
   * `until` is satisfied; a peer that fails is replaced by the next closest. Then to the
   * `alsoAsk` peers that did not answer yet. Throws NetworkError when nobody answered,
   * SwarmMismatchError when everyone who answered runs other parameters.
   */
  async ask(dht: DhtName, key: Uint8Array, req: Request, opts: AskOptions): Promise<Asked> {
    const asked = await this.#inTurn(dht, key, {
      first: req,
      later: opts.brief ?? req,
      ...(opts.brief === undefined ? {} : { firstTo: 1, held: opts.held }),
      want: opts.replicas,
      maxPeers: Number.POSITIVE_INFINITY,
      counts: () => true,
      until: opts.until ?? (() => false),
      speculate: opts.speculate === true,
    });
    const answered = new Set(asked.answers.map((a) => a.peer.toString()));
    const others = (opts.alsoAsk ?? [])
      .filter((p) => !answered.has(p) && !this.#foreign.has(p))
      .flatMap((p) => parsePeerId(p));
    for (const peer of others) asked.sent.push(this.#sent(peer, req));
    const results = await Promise.allSettled(others.map((p) => this.#network.send(p, req)));
    results.forEach((r, i) => {
      if (r.status === 'fulfilled') asked.answers.push({ peer: others[i] as PeerId, res: r.value });
    });
    return asked;
  }

  /**
   * A read routed over open connections to one of its key's replicas (Network.route), its
   * request counted in `sent`: the replica's answer, or none and the caller asks as without
   * routing. A peer of other swarm parameters answers none: the lookup's way finds out.
   */
  async routed(
    req: RoutedRequest,
    sent: Sent[],
    signal?: AbortSignal,
  ): Promise<Answer | undefined> {
    const r = await this.#network.route?.(req, signal);
    if (r === undefined) return undefined;
    if (!r.via.equals(this.#network.self)) sent.push({ peer: r.via, t: 'route', seq: this.#seq++ });
    const a = r.answer;
    if (a === undefined || this.#foreign.has(a.peer.toString())) return undefined;
    return a;
  }

  /**
   * GetSimilarCommunities at the holders of a key: the query to the closest peer; under churn
   * that peer may have just taken the key over and hold nothing yet, so an empty answer sends
   * the search on to the next replicas — with probes (the key alone), as most empty answers
   * come from keys nobody stored anything under, all at once (one round trip instead of one per
   * replica; the first whose probe says it holds something counts, so a replica that stopped
   * answering holds nobody up) — and the query follows only to that replica, in place of its
   * probe's answer.
   * Throws as `ask`.
   */
  async getSimilarCommunities(
    key: Uint8Array,
    query: QueryRequest,
    opts: QueryOptions,
  ): Promise<Asked> {
    // Routed, a replica's answer stands as the closest peer's would, an empty one included
    // (the replica probed the key's other replicas first, src/net/route.ts): a lookup behind
    // every empty key would cost what routing saves (many keys hold nothing).
    const routedSent: Sent[] = [];
    const routed = await this.routed(query, routedSent, opts.signal);
    if (routed !== undefined) return { answers: [routed], sent: routedSent, routed: true };
    opts.signal?.throwIfAborted();
    const probe: Request = { v: WIRE_VERSION, swarm: query.swarm, t: 'probe', key };
    const asked = await this.#inTurn('profiles', key, {
      first: query,
      later: probe,
      want: opts.replicas,
      maxPeers: opts.maxPeers,
      counts: (a) => holdsSomething(a.res),
      until: () => false,
      laterAtOnce: true,
      speculate: true,
      signal: opts.signal,
    });
    const answers: Answer[] = [];
    for (const a of asked.answers) {
      if ((a.res.held ?? 0) === 0) {
        answers.push(a);
        continue;
      }
      opts.signal?.throwIfAborted();
      asked.sent.push(this.#sent(a.peer, query));
      try {
        answers.push({ peer: a.peer, res: await this.#network.send(a.peer, query) });
      } catch {
        // gone since the probe: its probe answer tells nothing of the communities
      }
    }
    return { answers, sent: [...routedSent, ...asked.sent] };
  }

  /**
   * The records behind a brief query answer: the same query without `brief`, sent to the peer
   * that answered, once per answer; nothing if it fails. Unverified: the caller verifies.
   */
  askInFull(source: AnswerSource): Promise<WireSigned[]> {
    if (source.req.t !== 'query') return Promise.resolve([]);
    const { brief: _, ...full } = source.req;
    source.full ??= this.#network.send(source.peer, full).then(
      (res) => res.recs ?? [],
      () => [],
    );
    return source.full;
  }

  /** One request to one peer. */
  send(peer: PeerId, req: Request): Promise<OkResponse> {
    return this.#network.send(peer, req);
  }

  /** One request to the peer a contact address names. */
  sendToAddr(addr: string, req: Request): Promise<OkResponse> {
    return this.#network.sendToAddr(addr, req);
  }

  /**
   * The same peers, those that stopped answering (Network.unresponsive) after the others: a
   * replica that does answer is asked first instead of after a deadline. Stable: closeness
   * decides within each group.
   */
  #answeringFirst(peers: PeerId[]): PeerId[] {
    const answering: PeerId[] = [];
    const silent: PeerId[] = [];
    for (const p of peers) (this.#silent(p) ? silent : answering).push(p);
    return [...answering, ...silent];
  }

  #silent(peer: PeerId): boolean {
    return this.#network.unresponsive?.(peer) === true;
  }

  /**
   * The closest peers in turn: `first` to as many as answers are still wanted, `later` to the
   * next ones when some failed or did not count, until `want` counted, `until` holds, the
   * peers run out or `maxPeers` were asked. With `laterAtOnce`, `later` goes to all the
   * remaining peers at once, and their answers are taken as they come until `want` counted: a
   * round trip sooner than asking them in turn, and none waits for a silent one. With
   * `firstTo`, `first` goes to that many peers of the first round and `later` to the rest of
   * it. Peers that stopped answering (Network.unresponsive) are asked after the others.
   */
  async #inTurn(
    dht: DhtName,
    key: Uint8Array,
    plan: {
      first: Request;
      later: Request;
      want: number;
      maxPeers: number;
      counts: (a: Answer) => boolean;
      until: (answers: readonly Answer[]) => boolean;
      laterAtOnce?: boolean;
      speculate?: boolean;
      firstTo?: number;
      held?: ((res: OkResponse) => boolean) | undefined;
      signal?: AbortSignal | undefined;
    },
  ): Promise<Asked> {
    const answers: Answer[] = [];
    const sent: Sent[] = [];
    const early = new Map<string, Promise<OkResponse>>();
    // Peers whose answer to `first`, sent ahead, held what was asked (with `plan.held`).
    const heldAhead =
      plan.held === undefined ? undefined : { by: new Set<string>(), test: plan.held };
    // With `laterAtOnce`, the replicas after the first `want` get `later` at once if the first
    // answers do not count: it goes ahead to them too, so an empty key costs the lookup alone.
    // With `firstTo`, the rest of the first round gets `later`, ahead too.
    const firstTo = Math.min(plan.firstTo ?? plan.want, plan.want);
    const laterAhead =
      firstTo < plan.want
        ? { req: plan.later, count: plan.want - firstTo }
        : plan.laterAtOnce === true && Number.isFinite(plan.maxPeers)
          ? { req: plan.later, count: plan.maxPeers - plan.want }
          : undefined;
    const onHeard =
      plan.speculate && this.#opts.readsAhead > 0
        ? readAhead(
            {
              key,
              req: plan.first,
              want: firstTo,
              later: laterAhead,
              held: heldAhead,
              radius:
                (this.#opts.aheadRadius ?? 0) > 0
                  ? this.#closest.radius(firstTo, this.#opts.aheadRadius as number)
                  : undefined,
            },
            {
              self: this.#network.self,
              readsAhead: this.#opts.readsAhead,
              // Nor to a peer that stopped answering: the request would be spent for nothing.
              skip: (p) => this.#foreign.has(p.toString()) || this.#silent(p),
              send: (p, r) => {
                sent.push(this.#sent(p, r));
                return this.#network.send(p, r);
              },
            },
            early,
          )
        : undefined;
    const peers = this.#answeringFirst(
      (await this.candidates(dht, key, onHeard, plan.signal)).slice(0, plan.maxPeers),
    );
    let useful = 0;
    let mismatch: unknown;
    let lastError: unknown;
    let next = 0;
    while (useful < plan.want && next < peers.length && !plan.until(answers)) {
      plan.signal?.throwIfAborted();
      const atOnce = next > 0 && plan.laterAtOnce === true;
      const batch = peers.slice(next, atOnce ? peers.length : next + (plan.want - useful));
      // A request may have gone ahead to a peer while the lookup ran: its answer counts (the
      // first request's, in later rounds too: it tells at least what `later` would).
      const ahead = (p: PeerId) => early.get(p.toString());
      // An answer in full already in hand from one of them: the first round is brief too.
      const heldInBatch =
        heldAhead !== undefined && batch.some((q) => heldAhead.by.has(q.toString()));
      const sends = batch.map((p, i) => {
        const sentAhead = ahead(p);
        if (sentAhead !== undefined) return sentAhead;
        const req = next === 0 && i < firstTo && !heldInBatch ? plan.first : plan.later;
        sent.push(this.#sent(p, req));
        return this.#network.send(p, req);
      });
      next += batch.length;
      // Asked in turn, every answer is waited for and taken in order. Asked at once, answers
      // are taken as they come until `want` counted: a replica that stopped answering, or is
      // far, holds nobody up while another holds the key.
      const settled = sends.map(
        (p, i): Promise<Settled> =>
          p.then(
            (value) => [i, { status: 'fulfilled', value }],
            (reason: unknown) => [i, { status: 'rejected', reason }],
          ),
      );
      const results = atOnce ? asSettled(settled) : await Promise.all(settled);
      for await (const [i, r] of results) {
        const peer = batch[i] as PeerId;
        if (r.status === 'fulfilled') {
          const a = { peer, res: r.value };
          answers.push(a);
          if (plan.counts(a)) useful++;
        } else {
          this.#cache.delete(dht, key);
          if (r.reason instanceof RemoteError && r.reason.code === 'swarm-mismatch') {
            this.#foreign.add(peer.toString());
            mismatch = r.reason.params;
          } else lastError = r.reason;
        }
        // The rest would not have been asked in turn.
        if (atOnce && useful >= plan.want) break;
      }
    }
    const remote = answers.filter((a) => !a.peer.equals(this.#network.self)).length;
    // Only other-parameter peers around (or only ourselves answering among them): this node is
    // in the wrong swarm, and its own answers alone would pass for the swarm's.
    if (mismatch !== undefined && remote === 0 && lastError === undefined) {
      throw new SwarmMismatchError(this.#opts.swarmParams, mismatch);
    }
    if (answers.length === 0) {
      const why = lastError === undefined ? '' : `: ${(lastError as Error).message}`;
      throw new NetworkError(
        `no peer answered a ${plan.first.t} request (${peers.length} tried)${why}`,
      );
    }
    return { answers, sent };
  }

  #sent(peer: PeerId, req: Request): Sent {
    return { peer, t: req.t, seq: this.#seq++ };
  }
}

/** A peer id as remembered (holders are kept on disk); none if it does not parse. */
function parsePeerId(id: string): PeerId[] {
  try {
    return [peerIdFromString(id)];
  } catch {
    return [];
  }
}

/** A request's place in its batch and how it ended. */
type Settled = readonly [number, PromiseSettledResult<OkResponse>];

/** Each promise's index and value as it settles, first settled first. */
async function* asSettled<T>(
  promises: Promise<readonly [number, T]>[],
): AsyncGenerator<readonly [number, T]> {
  const pending = new Map(promises.map((p, i) => [i, p]));
  while (pending.size > 0) {
    const [i, v] = await Promise.race(pending.values());
    pending.delete(i);
    yield [i, v];
  }
}
