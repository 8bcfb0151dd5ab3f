import { EventEmitter } from 'node:events';
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { PeerId, PrivateKey } from '@libp2p/interface';
import { multiaddr } from '@multiformats/multiaddr';
import { Inbox, type Notification } from '../index/inbox.ts';
import { IndexTable } from '../index/index-table.ts';
import { type ResolvedSwarm, resolveSwarm } from '../index/swarm.ts';
import { IndexClient } from '../net/client.ts';
import { INDEX_PROTOCOL, WIRE_VERSION } from '../net/codec.ts';
import { deadline as timeLimit } from '../net/deadline.ts';
import { createHandlers } from '../net/handlers/index.ts';
import { type CidxLibp2p, createHost } from '../net/libp2p.ts';
import { Meter, type TrafficCounters } from '../net/meter.ts';
import { IndexServer } from '../net/server.ts';
import { FieldError } from '../profile/errors.ts';
import { parseProfile } from '../profile/parse.ts';
import { Profile } from '../profile/profile.ts';
import {
  type Limits,
  type NodeOptions,
  resolveLimits,
  resolveTiming,
  type Timing,
} from './config.ts';
import type { NodeContext } from './context.ts';
import { type ChangeResult, type CreateOptions, createCommunity } from './create.ts';
import { dissolveCommunity } from './dissolve.ts';
import { SwarmMismatchError, UnknownCommunityError } from './errors.ts';
import { lookupCommunity } from './lookup.ts';
import { MemoryOwnedStore, type OwnedCommunity, type OwnedStore } from './ownership.ts';
import { type RepublishReport, republishOwned } from './republish.ts';
import { Router } from './router.ts';
import {
  type CommunityResult,
  type JoinOptions,
  type JoinResult,
  joinCommunities,
  searchCommunities,
} from './search.ts';
import type { NodeStorage } from './storage.ts';
import { updateCommunity } from './update.ts';

export interface NodeEvents {
  notification: [Notification];
  republished: [RepublishReport];
  warning: [string];
}

export interface CommunityInfo {
  id: string;
  version: number;
  profile: Profile;
  contacts: string[];
  owned: boolean;
}

/**
 * A cidx index node: one libp2p host in ProfilesDHT and AddressesDHT, serving its share of the
 * index and running the thesis's requester algorithms (search, join, create, update, dissolve),
 * republishing what it owns and keeping an inbox of notifications.
 */
export class CidxNode extends EventEmitter<NodeEvents> {
  readonly libp2p: CidxLibp2p;
  readonly swarm: ResolvedSwarm;
  readonly timing: Timing;
  readonly limits: Limits;
  readonly table: IndexTable;
  readonly inbox: Inbox;
  readonly meter = new Meter();
  readonly #ctx: NodeContext;
  readonly #server: IndexServer;
  readonly #bootstrap: string[];
  readonly #now: () => number;
  #timers: NodeJS.Timeout[] = [];
  /** What each cidx peer answered about its swarm parameters. */
  readonly #verdicts = new Map<string, 'same' | 'other'>();
  #otherParams: unknown;
  readonly #onIdentify = (evt: CustomEvent<{ peerId: PeerId; protocols: string[] }>) => {
    if (evt.detail.protocols.includes(INDEX_PROTOCOL)) void this.#checkPeer(evt.detail.peerId);
  };
  #republishing = false;
  #started = false;
  readonly #storage: NodeStorage | undefined;
  #persisting: Promise<void> = Promise.resolve();

  private constructor(
    libp2p: CidxLibp2p,
    key: PrivateKey,
    opts: NodeOptions,
    owned: OwnedStore,
    storage: NodeStorage | undefined,
  ) {
    super();
    this.#storage = storage;
    this.libp2p = libp2p;
    this.swarm = resolveSwarm(opts.swarm);
    this.timing = resolveTiming(opts.timing);
    this.limits = resolveLimits(opts.limits);
    this.#now = opts.now ?? Date.now;
    this.#bootstrap = opts.bootstrap ?? [];
    this.table = new IndexTable(
      { recordTtlMs: this.timing.recordTtlMs, tombstoneTtlMs: this.timing.tombstoneTtlMs },
      { perOwnerPerKey: this.limits.quotaPerOwnerPerKey, perOwner: this.limits.quotaPerOwner },
    );
    this.inbox = new Inbox({
      capacity: this.limits.inboxCapacity,
      filterCells: this.limits.inboxFilterCells,
    });
    const profileLimits = {
      maxAttributes: this.limits.maxAttributes,
      maxRelations: this.limits.maxRelations,
    };
    const handlers = createHandlers({
      table: this.table,
      inbox: this.inbox,
      swarm: this.swarm,
      profileLimits,
      responseBudget: this.limits.maxFrameBytes - 1024,
      now: this.#now,
      persist: () => this.#persistTable(),
      notified: async (n) => {
        await this.#storage?.saveNotification(n, this.inbox.capacity);
        this.emit('notification', n);
      },
    });
    this.#server = new IndexServer(
      libp2p,
      handlers,
      {
        timeoutMs: this.timing.requestTimeoutMs,
        maxFrameBytes: this.limits.maxFrameBytes,
        maxInboundStreams: this.limits.maxInboundStreams,
        peerRequestsPerSecond: this.limits.peerRequestsPerSecond,
        profileLimits,
        swarmDigest: this.swarm.digest,
        swarmParams: this.swarm.params,
      },
      this.meter,
    );
    const client = new IndexClient(
      libp2p,
      {
        timeoutMs: this.timing.requestTimeoutMs,
        maxFrameBytes: this.limits.maxFrameBytes,
      },
      this.meter,
    );
    const router = new Router(libp2p, client, this.#server, {
      lookupTimeoutMs: this.timing.lookupTimeoutMs,
      closestCacheMs: this.timing.closestCacheMs,
      now: this.#now,
      swarmParams: this.swarm.params,
      ...(opts.onLookup ? { onLookup: opts.onLookup } : {}),
    });
    this.#ctx = {
      libp2p,
      router,
      swarm: this.swarm,
      timing: this.timing,
      limits: this.limits,
      key,
      owned,
      profileLimits,
      now: this.#now,
      ...(opts.onSearch ? { onSearch: opts.onSearch } : {}),
    };
  }

  /**
   * Builds a node (not started). Parameters are checked here: a bad one throws ParamsError.
   * With `storage`, the node's identity, DHT records, index share, owned communities and inbox
   * live on disk, and whatever the store held is loaded back.
   */
  static async create(opts: NodeOptions, storage?: NodeStorage): Promise<CidxNode> {
    const { params } = resolveSwarm(opts.swarm);
    resolveTiming(opts.timing);
    resolveLimits(opts.limits);
    // A lookup returns kad-dht's k closest peers: at least the replicas plus one for failover.
    const dht = { kBucketSize: Math.max(4, params.replicas + 1), ...opts.dht };
    const privateKey =
      opts.privateKey ?? (await storage?.identity()) ?? (await generateKeyPair('Ed25519'));
    const owned = (await storage?.ownedStore()) ?? new MemoryOwnedStore();
    const datastore = storage?.datastore ?? opts.datastore;
    const libp2p = await createHost({
      ...opts,
      dht,
      privateKey,
      ...(datastore ? { datastore } : {}),
    });
    const node = new CidxNode(libp2p, privateKey, opts, owned, storage);
    if (storage !== undefined) {
      await storage.loadTable(node.table);
      await storage.loadInbox(node.inbox);
    }
    return node;
  }

  get peerId(): PeerId {
    return this.libp2p.peerId;
  }

  /** Listen addresses, each ending in /p2p/<peer id>. */
  get addrs(): string[] {
    return this.libp2p.getMultiaddrs().map(String);
  }

  /**
   * Starts the host and the protocol, joins through the bootstrap peers and checks that they
   * run the same swarm parameters (SwarmMismatchError otherwise), then starts the timers.
   */
  async start(): Promise<void> {
    if (this.#started) return;
    await this.libp2p.start();
    await this.#server.start();
    this.libp2p.addEventListener('peer:identify', this.#onIdentify);
    this.#started = true;
    try {
      await this.#joinSwarm();
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.#every(this.timing.republishIntervalMs, () => this.republish().then(() => {}));
    this.#every(this.timing.expireIntervalMs, async () => {
      this.table.expire(this.#now());
      await this.#persistTable();
    });
    // After a restart the swarm may have moved on: put back what this node owns right away.
    if (this.#ctx.owned.all().length > 0) {
      void this.republish().catch((err) =>
        this.emit('warning', `republish: ${(err as Error).message}`),
      );
    }
  }

  /**
   * Writes the index table's pending changes to the store (a no-op without one). Writes run one
   * after another, and each caller waits for a write that began after its own changes were
   * journaled: whichever batch carries them, they are on disk before the caller answers.
   */
  #persistTable(): Promise<void> {
    const step = this.#persisting.then(async () => {
      const changes = this.table.drainChanges();
      await this.#storage?.writeChanges(changes);
    });
    this.#persisting = step.catch(() => {});
    return step;
  }

  async stop(): Promise<void> {
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    if (!this.#started) return;
    this.#started = false;
    this.libp2p.removeEventListener('peer:identify', this.#onIdentify);
    await this.#server.stop().catch(() => {});
    await this.libp2p.stop();
  }

  /** The k communities most similar to the profile, best first, with their contacts. */
  async search(profile: Profile | unknown, opts: { k?: number } = {}): Promise<CommunityResult[]> {
    this.#assertSwarm();
    return searchCommunities(
      this.#ctx,
      this.#profile(profile),
      checkK(opts.k ?? this.swarm.params.k),
    );
  }

  /** The best community for each interest of the profile. */
  async join(profile: Profile | unknown, opts: JoinOptions = {}): Promise<JoinResult> {
    if (opts.k !== undefined) checkK(opts.k);
    this.#assertSwarm();
    return joinCommunities(this.#ctx, this.#profile(profile), opts);
  }

  async create(profile: Profile | unknown, opts: CreateOptions = {}): Promise<ChangeResult> {
    this.#assertSwarm();
    return createCommunity(this.#ctx, this.#profile(profile), opts);
  }

  /** A new profile (and optionally a new contact list) for a community this node owns. */
  async update(
    id: string,
    profile: Profile | unknown,
    opts: { notify?: number; contacts?: string[] } = {},
  ): Promise<ChangeResult> {
    return updateCommunity(this.#ctx, id, this.#profile(profile), opts);
  }

  async dissolve(id: string): Promise<{ id: string; dissolved: true }> {
    this.#assertSwarm();
    return dissolveCommunity(this.#ctx, id);
  }

  /** A community by id: from this node if it owns it, else from AddressesDHT. */
  async get(id: string): Promise<CommunityInfo> {
    const own = this.#ctx.owned.get(id);
    if (own !== undefined) {
      if (own.dissolved !== undefined) throw new UnknownCommunityError(id, 'dissolved community');
      return {
        id,
        version: own.version,
        profile: own.profile,
        contacts: own.contacts,
        owned: true,
      };
    }
    const entry = await lookupCommunity(this.#ctx, id);
    if (entry.dissolved) throw new UnknownCommunityError(id, 'dissolved community');
    if (entry.descriptor === undefined) throw new UnknownCommunityError(id);
    return {
      id,
      version: entry.descriptor.version,
      profile: entry.descriptor.profile,
      contacts: entry.contacts?.addrs ?? [],
      owned: false,
    };
  }

  /** What this node keeps about a community it owns (signed records included). */
  owned(id: string): OwnedCommunity | undefined {
    return this.#ctx.owned.get(id);
  }

  /** Ids of the communities this node owns (dissolved ones excluded). */
  ownedIds(): string[] {
    return this.#ctx.owned
      .all()
      .filter((c) => c.dissolved === undefined)
      .map((c) => c.id);
  }

  notifications(since = 0): Notification[] {
    return this.inbox.list(since);
  }

  /** Runs one republish round now (also run every republishIntervalMs). */
  async republish(): Promise<RepublishReport> {
    if (this.#republishing) return { communities: 0, tombstones: 0, failedKeys: 0 };
    this.#republishing = true;
    try {
      const report = await republishOwned(this.#ctx);
      this.emit('republished', report);
      return report;
    } finally {
      this.#republishing = false;
    }
  }

  info(): {
    peerId: string;
    addrs: string[];
    swarm: ResolvedSwarm['params'];
    peers: { profiles: number; addresses: number; connections: number; foreign: number };
    stored: ReturnType<IndexTable['stats']>;
    owned: number;
    inbox: number;
  } {
    return {
      peerId: this.peerId.toString(),
      addrs: this.addrs,
      swarm: this.swarm.params,
      peers: {
        profiles: routingTableSize(this.libp2p.services.profiles),
        addresses: routingTableSize(this.libp2p.services.addresses),
        connections: this.libp2p.getConnections().length,
        foreign: [...this.#verdicts.values()].filter((v) => v === 'other').length,
      },
      stored: this.table.stats(),
      owned: this.ownedIds().length,
      inbox: this.inbox.size,
    };
  }

  /** Traffic of the cidx protocol by message type (`out:query`, `in:store-response`, …). */
  traffic(): Record<string, TrafficCounters> {
    return this.meter.snapshot();
  }

  /**
   * Every cidx peer this node has met runs other swarm parameters: this node is the odd one out,
   * and answering from its own table alone would pass for the swarm's results.
   */
  #assertSwarm(): void {
    const verdicts = [...this.#verdicts.values()];
    if (verdicts.includes('other') && !verdicts.includes('same')) {
      throw new SwarmMismatchError(this.swarm.params, this.#otherParams);
    }
  }

  /** Asks a newly identified cidx peer for its swarm parameters (until three agreed). */
  async #checkPeer(peer: PeerId): Promise<void> {
    const k = peer.toString();
    if (this.#verdicts.has(k) || peer.equals(this.peerId)) return;
    // Three peers with our parameters show we are in the right swarm; a stray peer met later is
    // still caught, by its swarm-mismatch answer to our first request. Asking every peer would
    // cost a request per connection.
    let same = 0;
    for (const v of this.#verdicts.values()) if (v === 'same') same++;
    if (same >= 3) return;
    try {
      const res = await this.#ctx.router.send(peer, {
        v: WIRE_VERSION,
        swarm: this.swarm.digest,
        t: 'params',
      });
      const theirs = resolveSwarm(res.params as never);
      const same = Buffer.compare(theirs.digest, this.swarm.digest) === 0;
      this.#verdicts.set(k, same ? 'same' : 'other');
      if (!same) {
        this.#otherParams = theirs.params;
        this.#ctx.router.markForeign(peer);
      }
    } catch {
      // unreachable now: checked again when it is identified again
    }
  }

  #profile(p: Profile | unknown): Profile {
    return p instanceof Profile ? p : parseProfile(p, this.#ctx.profileLimits);
  }

  #every(ms: number, fn: () => Promise<void>): void {
    const t = setInterval(() => {
      fn().catch((err) => this.emit('warning', `${(err as Error).message}`));
    }, ms);
    t.unref();
    this.#timers.push(t);
  }

  /**
   * Kademlia's join step: wait until the bootstrap peers are in the routing tables (kad-dht adds
   * them once identify confirms the protocol), then look up our own id on ProfilesDHT, which
   * fills the table with our neighbours and tells them about us. Both DHTs run over the same
   * connections, so AddressesDHT learns the same peers as they are identified: one self-lookup
   * serves both (a second one measured as pure cost). Without this step a node that just
   * started would treat itself as the closest peer of every key. Bounded by lookupTimeoutMs.
   */
  async #fillRoutingTables(): Promise<void> {
    const deadline = Date.now() + this.timing.lookupTimeoutMs;
    const { profiles, addresses } = this.libp2p.services;
    while (
      (routingTableSize(profiles) === 0 || routingTableSize(addresses) === 0) &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const limit = timeLimit(Math.max(1, deadline - Date.now()));
    try {
      for await (const _ of profiles.getClosestPeers(this.peerId.toMultihash().bytes, {
        signal: limit.signal,
      })) {
        // draining the lookup is the point: each answer adds peers to the routing table
      }
    } catch (err) {
      if (!limit.signal.aborted) this.emit('warning', `self-lookup: ${(err as Error).message}`);
    } finally {
      limit.clear();
    }
  }

  async #joinSwarm(): Promise<void> {
    if (this.#bootstrap.length === 0) return;
    let reached = 0;
    let lastError: unknown;
    for (const addr of this.#bootstrap) {
      try {
        const ma = multiaddr(addr);
        const conn = await this.libp2p.dial(ma, {
          signal: AbortSignal.timeout(this.timing.requestTimeoutMs),
        });
        const res = await this.#ctx.router.send(conn.remotePeer, {
          v: WIRE_VERSION,
          swarm: this.swarm.digest,
          t: 'params',
        });
        const theirs = resolveSwarm(res.params as never);
        if (Buffer.compare(theirs.digest, this.swarm.digest) !== 0) {
          throw new SwarmMismatchError(this.swarm.params, theirs.params);
        }
        reached++;
      } catch (err) {
        if (err instanceof SwarmMismatchError) throw err;
        lastError = err;
      }
    }
    if (reached > 0) {
      await this.#fillRoutingTables();
      return;
    }
    this.emit(
      'warning',
      `no bootstrap peer reachable (${(lastError as Error)?.message}); retrying`,
    );
    this.#every(this.timing.bootstrapRetryMs, async () => {
      if (this.libp2p.getConnections().length > 0) return;
      await Promise.allSettled(this.#bootstrap.map((a) => this.libp2p.dial(multiaddr(a))));
    });
  }
}

function routingTableSize(dht: unknown): number {
  return (dht as { routingTable?: { size?: number } }).routingTable?.size ?? 0;
}

function checkK(k: number): number {
  if (!Number.isInteger(k) || k < 1 || k > 1000)
    throw new FieldError('k', 'must be an integer in [1, 1000]');
  return k;
}
