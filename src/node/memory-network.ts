/**
 * The requester's network in memory: simulated peers, each with its own index table and inbox,
 * answering with the responder logic of src/index (algorithms 4.12–4.15) through the protocol's
 * handlers (src/net/handlers). No libp2p: unit tests of the requester algorithms and the
 * loss-free model run on it. A peer can be made to fail in the ways a swarm does
 * (`MemoryFaults`).
 *
 * Requests and answers are encoded as the wire would carry them (their sizes are reported) but
 * handed over as objects, as a node hands its own requests to its server. Queries and stores
 * take the handlers' steps with caches the handlers cannot have: the loss-free model stores
 * hundreds of communities under a hundred keys each, and every handler step per copy — verify
 * the signature, derive the keys, score against every held descriptor — made it ten times
 * slower. A record is verified and its keys derived once per request object, a query's profile
 * parsed once per search, and a pair of profiles scored once.
 */
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { PeerId, PrivateKey } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { multiaddr } from '@multiformats/multiaddr';
import { Inbox } from '../index/inbox.ts';
import { IndexTable, type Quotas } from '../index/index-table.ts';
import type { DescriptorRecord, SignedRecord } from '../index/records.ts';
import {
  getSimilarCommunities,
  leaveOutSeen,
  type Score,
  storeDescriptor,
  updateDescriptor,
} from '../index/responder.ts';
import type { ResolvedSwarm } from '../index/swarm.ts';
import { indexKeys } from '../keys/index-keys.ts';
import { RemoteError } from '../net/client.ts';
import { sortByDistance } from '../net/closest.ts';
import {
  blobFromWire,
  blobToWire,
  CodecError,
  encodeMessage,
  fitToFrame,
  type OkResponse,
  type Request,
  type Response,
  type WireSigned,
} from '../net/codec.ts';
import { createHandlers } from '../net/handlers/index.ts';
import { summaries } from '../net/handlers/query.ts';
import { openRecord, RecordError } from '../net/records.ts';
import { fail, type Handler, type Handlers, ok } from '../net/server.ts';
import { profileFromWire, type WireProfile } from '../net/wire-profile.ts';
import { FieldError } from '../profile/errors.ts';
import type { Profile } from '../profile/profile.ts';
import { similarity } from '../profile/similarity.ts';
import { hex } from '../util/bytes.ts';
import { DEFAULT_LIMITS, DEFAULT_TIMING } from './config.ts';
import { type ContextOptions, createContext, type NodeContext } from './context.ts';
import type { DhtName, Network } from './network.ts';
import { MemoryOwnedStore } from './ownership.ts';

/** How a simulated peer misbehaves; all off by default, each may change at any time. */
export interface MemoryFaults {
  /** Gone: every request to it fails, as to a crashed peer still in routing tables. */
  dead?: boolean;
  /**
   * Stopped: requests to it are never answered (no deadline runs here), as a stopped process
   * holds whoever waits for it. Tests use it to show that nothing waits for such a peer.
   */
  frozen?: boolean;
  /** Answers queries and probes as if it held nothing (a peer that just took a key over). */
  empty?: boolean;
  /** Claims this similarity for this community in every brief answer it gives. */
  lie?: { id: string; version: number; sim: number };
  /** Its AddressesDHT entries are gone: contact lookups find nothing there. */
  lostContacts?: boolean;
  /** Runs other swarm parameters (another k): answers every request but `params` with `swarm-mismatch`. */
  otherSwarm?: boolean;
  /**
   * Slow at some requests: answers a request of a type `until` names once that promise
   * settles, telling `onHeld` of each as it arrives (a test waits for one to be on its way).
   */
  held?: {
    until: Partial<Record<Request['t'], Promise<void>>>;
    onHeld?: (t: Request['t']) => void;
  };
}

/** One request and its answer as they crossed the simulated wire. */
export interface Exchange {
  from: PeerId;
  to: PeerId;
  req: Request;
  res: Response;
  requestBytes: number;
  responseBytes: number;
}

export interface MemoryNetworkOptions {
  swarm: ResolvedSwarm;
  now?: () => number;
  /** Remote peers a lookup returns, closest first (kad-dht's k; default 4). */
  closest?: number;
  /** Per-owner limits of every peer's table (default: the node's). */
  quotas?: Quotas;
  /** Told of every answered request (the loss-free model counts its bytes). */
  onExchange?: (e: Exchange) => void;
}

/** What the peers of one network compute once and share (they all live in one process). */
class SharedWork {
  readonly #index: ResolvedSwarm['params']['index'];
  readonly #profiles = new WeakMap<WireProfile, Profile>();
  readonly #records = new WeakMap<WireSigned, Promise<SignedRecord>>();
  readonly #keys = new WeakMap<DescriptorRecord, Set<string>>();
  readonly #scores = new WeakMap<Profile, WeakMap<DescriptorRecord, number>>();

  constructor(swarm: ResolvedSwarm) {
    this.#index = swarm.params.index;
  }

  profile(w: WireProfile): Profile {
    let p = this.#profiles.get(w);
    if (p === undefined) {
      p = profileFromWire(w);
      this.#profiles.set(w, p);
    }
    return p;
  }

  /** The record a request carries, verified (a forged one rejects, every time it is asked). */
  open(w: WireSigned): Promise<SignedRecord> {
    let r = this.#records.get(w);
    if (r === undefined) {
      r = openRecord(blobFromWire(w));
      this.#records.set(w, r);
    }
    return r;
  }

  /** The index keys (hex) of a descriptor's profile. */
  keysOf(rec: DescriptorRecord): Set<string> {
    let k = this.#keys.get(rec);
    if (k === undefined) {
      k = new Set(indexKeys(rec.profile, this.#index).map(hex));
      this.#keys.set(rec, k);
    }
    return k;
  }

  readonly score: Score = (profile, rec) => {
    let m = this.#scores.get(profile);
    if (m === undefined) {
      m = new WeakMap();
      this.#scores.set(profile, m);
    }
    let v = m.get(rec);
    if (v === undefined) {
      v = similarity(profile, rec.profile);
      m.set(rec, v);
    }
    return v;
  };
}

const RESPONSE_BUDGET = DEFAULT_LIMITS.maxFrameBytes - 1024;

export class MemoryPeer {
  readonly key: PrivateKey;
  readonly id: PeerId;
  /** Its contact address (a multiaddr naming the peer). */
  readonly addr: string;
  readonly table: IndexTable;
  readonly inbox: Inbox;
  /** The communities it owns, whichever of its contexts created them. */
  readonly owned = new MemoryOwnedStore();
  readonly faults: MemoryFaults = {};
  readonly #handlers: Handlers;
  readonly #swarm: ResolvedSwarm;
  readonly #shared: SharedWork;
  readonly #now: () => number;

  constructor(key: PrivateKey, o: MemoryNetworkOptions, shared: SharedWork) {
    this.key = key;
    this.id = peerIdFromPrivateKey(key);
    this.addr = `/memory/${this.id.toString()}/p2p/${this.id.toString()}`;
    this.#swarm = o.swarm;
    this.#shared = shared;
    this.#now = o.now ?? Date.now;
    this.table = new IndexTable(
      { recordTtlMs: DEFAULT_TIMING.recordTtlMs, tombstoneTtlMs: DEFAULT_TIMING.tombstoneTtlMs },
      o.quotas,
    );
    this.inbox = new Inbox({ capacity: 1000, filterCells: 1 << 16 });
    this.#handlers = createHandlers({
      table: this.table,
      inbox: this.inbox,
      swarm: o.swarm,
      profileLimits: {},
      responseBudget: RESPONSE_BUDGET,
      now: this.#now,
      // Nothing to write: the journal is emptied so that it does not grow.
      persist: async () => {
        this.table.drainChanges();
      },
      notified: async () => {},
    });
  }

  /** What the peer answers, as `IndexServer.dispatch` would, faults applied. */
  async answer(from: PeerId, req: Request): Promise<Response> {
    const f = this.faults;
    const held = f.held?.until[req.t];
    if (held !== undefined) {
      f.held?.onHeld?.(req.t);
      await held;
    }
    if (f.otherSwarm === true) {
      const other = { ...this.#swarm.params, k: this.#swarm.params.k + 1 };
      if (req.t === 'params') return ok({ params: other });
      return fail('swarm-mismatch', 'this node runs other swarm parameters', other);
    }
    if (req.t !== 'params' && !sameDigest(req, this.#swarm))
      return fail('swarm-mismatch', 'this node runs other swarm parameters', this.#swarm.params);
    if (f.empty === true && req.t === 'probe') return ok({ held: 0 });
    if (f.empty === true && req.t === 'query') return ok(req.brief ? { sums: [] } : { recs: [] });
    if (f.lostContacts === true && req.t === 'contacts-get') return ok({});
    let res: Response;
    try {
      if (req.t === 'query') res = this.#query(req);
      else if (req.t === 'store' || req.t === 'update') res = await this.#store(req);
      else res = await (this.#handlers[req.t] as Handler).handle(from, req);
    } catch (err) {
      if (err instanceof RecordError) return fail('bad-record', err.message);
      if (err instanceof FieldError || err instanceof CodecError)
        return fail('bad-request', err.message);
      return fail('internal', (err as Error).message);
    }
    if (f.lie !== undefined && req.t === 'query' && res.ok && res.sums !== undefined) {
      const { id, version, sim } = f.lie;
      res.sums = [
        { id: Buffer.from(id, 'hex'), v: version, sim },
        ...res.sums.filter((s) => hex(s.id) !== id),
      ];
    }
    return res;
  }

  /** QueryHandler's steps (algorithm 4.12). */
  #query(req: Extract<Request, { t: 'query' }>): Response {
    const profile = this.#shared.profile(req.profile);
    const now = this.#now();
    const ranked = getSimilarCommunities(
      this.table,
      req.key,
      profile,
      req.k,
      now,
      this.#shared.score,
    );
    const seen = req.seen === undefined ? undefined : { k: req.seen.k, bits: req.seen.b };
    const { kept, omitted } = leaveOutSeen(ranked, seen);
    const body = req.brief
      ? { sums: summaries(kept) }
      : {
          recs: fitToFrame(
            kept.map((r) => blobToWire(r.record.blob)),
            RESPONSE_BUDGET,
          ),
        };
    return ok(omitted > 0 ? { ...body, omitted } : body);
  }

  /** StoreHandler's steps (algorithms 4.13, 4.14). */
  async #store(req: Extract<Request, { t: 'store' | 'update' }>): Promise<Response> {
    const rec = await this.#shared.open(req.rec);
    if (rec.kind !== 'descriptor')
      throw new RecordError(`${req.t} needs a descriptor, got a ${rec.kind}`);
    if (!this.#shared.keysOf(rec).has(hex(req.key)))
      throw new FieldError('key', "is not one of the descriptor's index keys");
    const apply = req.t === 'update' ? updateDescriptor : storeDescriptor;
    const now = this.#now();
    const { outcome, similar } = apply(this.table, req.key, rec, req.s, now, this.#shared.score);
    this.table.drainChanges();
    if (req.brief === true) return ok({ outcome, sums: summaries(similar) });
    const recs = fitToFrame(
      similar.map((r) => blobToWire(r.record.blob)),
      RESPONSE_BUDGET,
    );
    return ok({ outcome, recs });
  }
}

export class MemoryNetwork {
  readonly peers: MemoryPeer[];
  readonly #opts: MemoryNetworkOptions;
  readonly #byId = new Map<string, MemoryPeer>();
  /** By requester: the peers whose last request failed as lost (Network.unresponsive). */
  readonly #lost = new Map<string, Set<string>>();

  private constructor(peers: MemoryPeer[], opts: MemoryNetworkOptions) {
    this.peers = peers;
    this.#opts = opts;
    for (const p of peers) this.#byId.set(p.id.toString(), p);
  }

  /** A network of `count` peers, each with a fresh Ed25519 identity. */
  static async create(count: number, opts: MemoryNetworkOptions): Promise<MemoryNetwork> {
    const keys = await Promise.all(Array.from({ length: count }, () => generateKeyPair('Ed25519')));
    const shared = new SharedWork(opts.swarm);
    return new MemoryNetwork(
      keys.map((k) => new MemoryPeer(k, opts, shared)),
      opts,
    );
  }

  peer(id: PeerId | string): MemoryPeer | undefined {
    return this.#byId.get(id.toString());
  }

  /** The network as `peer` sees it: its own lookups, its requests. */
  from(peer: MemoryPeer): Network {
    return {
      self: peer.id,
      addrs: () => [peer.addr],
      ownAddrs: () => [peer.addr],
      closestPeers: async (_dht: DhtName, key: Uint8Array) => this.closest(peer, key),
      unresponsive: (p) => this.#lostBy(peer.id).has(p.toString()),
      send: (to, req) => this.#exchange(peer, to, req),
      sendToAddr: async (addr, req) => {
        const id = multiaddr(addr)
          .getComponents()
          .findLast((c) => c.name === 'p2p')?.value;
        const to = id === undefined ? undefined : this.#byId.get(id);
        if (to === undefined) throw new Error(`no peer at ${addr}`);
        return this.#exchange(peer, to.id, req);
      },
    };
  }

  /** A requester's context on `peer` (its key owns what it creates). */
  context(peer: MemoryPeer, o: Partial<ContextOptions> = {}): NodeContext {
    return createContext(this.from(peer), {
      swarm: this.#opts.swarm,
      key: peer.key,
      owned: peer.owned,
      now: this.#opts.now,
      ...o,
    });
  }

  /**
   * What a lookup from `self` finds: the `closest` remote peers by XOR distance, dead ones
   * included (routing tables still hold them), and `self`.
   */
  closest(self: MemoryPeer, key: Uint8Array): PeerId[] {
    const others = this.peers.filter((p) => p !== self).map((p) => p.id);
    const remote = sortByDistance(others, key).slice(0, this.#opts.closest ?? 4);
    return sortByDistance([self.id, ...remote], key);
  }

  #lostBy(requester: PeerId): Set<string> {
    const id = requester.toString();
    let lost = this.#lost.get(id);
    if (lost === undefined) {
      lost = new Set();
      this.#lost.set(id, lost);
    }
    return lost;
  }

  async #exchange(from: MemoryPeer, to: PeerId, req: Request): Promise<OkResponse> {
    const target = this.#byId.get(to.toString());
    const lost = this.#lostBy(from.id);
    if (target === undefined || target.faults.dead === true) {
      lost.add(to.toString());
      throw new Error(`peer ${to.toString()} is unreachable`);
    }
    if (target.faults.frozen === true) await new Promise(() => {});
    const requestBytes = encodeMessage(req).length;
    const res = await target.answer(from.id, req);
    lost.delete(to.toString());
    const responseBytes = encodeMessage(res).length;
    this.#opts.onExchange?.({ from: from.id, to, req, res, requestBytes, responseBytes });
    if (!res.ok) throw new RemoteError(res.code, res.msg, res.params);
    return res;
  }
}

function sameDigest(req: { swarm: Uint8Array }, swarm: ResolvedSwarm): boolean {
  return Buffer.compare(req.swarm, swarm.digest) === 0;
}
