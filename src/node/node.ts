import { EventEmitter } from 'node:events';
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { IdentifyResult, PeerId, PrivateKey } from '@libp2p/interface';
import type { Inbox, Notification } from '../index/inbox.ts';
import type { IndexTable } from '../index/index-table.ts';
import { type ResolvedSwarm, resolveSwarm } from '../index/swarm.ts';
import { INDEX_PROTOCOL } from '../net/codec.ts';
import { type CidxLibp2p, createHost, ownPathDepthOf } from '../net/libp2p.ts';
import type { Meter, TrafficCounters } from '../net/meter.ts';
import type { DhtMode, Reachability } from '../net/reachability.ts';
import { backoffCounts } from '../net/refusal-backoff.ts';
import { FieldError } from '../profile/errors.ts';
import { parseProfile } from '../profile/parse.ts';
import { Profile } from '../profile/profile.ts';
import { assembleNode, type NodeParts } from './assemble.ts';
import { joinSwarm } from './bootstrap.ts';
import {
  type Limits,
  type NodeOptions,
  resolveLimits,
  resolveTiming,
  type Timing,
} from './config.ts';
import { type ContactsChange, ContactsRefresh } from './contacts-refresh.ts';
import type { NodeContext } from './context.ts';
import { type ChangeResult, type CreateOptions, createCommunity } from './create.ts';
import { dissolveCommunity } from './dissolve.ts';
import { UnknownCommunityError } from './errors.ts';
import { lookupCommunity } from './lookup.ts';
import { MemoryOwnedStore, type OwnedCommunity } from './ownership.ts';
import { type RepublishReport, republishOwned } from './republish.ts';
import {
  type CommunityResult,
  type JoinOptions,
  type JoinResult,
  joinCommunities,
  searchCommunities,
} from './search.ts';
import type { NodeStorage } from './storage.ts';
import { Timers } from './timers.ts';
import { updateCommunity } from './update.ts';

export interface NodeEvents {
  notification: [Notification];
  republished: [RepublishReport];
  /** A community's defaulted contacts were republished: the node's addresses changed. */
  contacts: [ContactsChange];
  warning: [string];
}

export interface PeersInfo {
  routing: { profiles: string[]; addresses: string[] };
  connections: {
    peer: string;
    addr: string;
    direction: 'inbound' | 'outbound';
    limited: boolean;
  }[];
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
 * republishing what it owns and keeping an inbox of notifications. This class is the facade:
 * the parts are wired in assemble.ts, the join in bootstrap.ts, the swarm check in
 * swarm-check.ts.
 */
export class CidxNode extends EventEmitter<NodeEvents> {
  readonly libp2p: CidxLibp2p;
  readonly swarm: ResolvedSwarm;
  readonly timing: Timing;
  readonly limits: Limits;
  readonly table: IndexTable;
  readonly inbox: Inbox;
  readonly meter: Meter;
  readonly #parts: NodeParts;
  readonly #ctx: NodeContext;
  readonly #bootstrap: string[];
  readonly #simulation: boolean;
  readonly #ownPathDepth: number;
  readonly #timers: Timers;
  readonly #onIdentify = (evt: CustomEvent<IdentifyResult>) => {
    if (evt.detail.protocols.includes(INDEX_PROTOCOL))
      void this.#parts.check.identified(evt.detail.peerId);
  };
  readonly #contacts: ContactsRefresh;
  /** Republish and contact refreshes rewrite owned communities: one at a time. */
  #ownedWork: Promise<unknown> = Promise.resolve();
  #republishing = false;
  #started = false;

  private constructor(libp2p: CidxLibp2p, parts: NodeParts, opts: NodeOptions) {
    super();
    this.libp2p = libp2p;
    this.#parts = parts;
    this.#ctx = parts.ctx;
    this.swarm = parts.swarm;
    this.timing = parts.timing;
    this.limits = parts.limits;
    this.table = parts.table;
    this.inbox = parts.inbox;
    this.meter = parts.meter;
    this.#bootstrap = opts.bootstrap ?? [];
    this.#simulation = opts.simulation === true;
    // The same depth createHost applies, so the start-up check looks for what was wrapped.
    this.#ownPathDepth = ownPathDepthOf(opts.dht);
    this.#timers = new Timers((msg) => this.emit('warning', msg), opts.scheduler);
    this.#contacts = new ContactsRefresh(this.#ctx, libp2p.services.reachability, {
      settleMs: this.timing.contactsSettleMs,
      serialize: (work) => this.#serialize(work),
      changed: (c) => this.emit('contacts', c),
      warn: (msg) => this.emit('warning', msg),
    });
  }

  /**
   * Builds a node (not started). Parameters are checked here: a bad one throws ParamsError.
   * With `storage`, the node's identity, DHT records, index share, owned communities and inbox
   * live on disk, and whatever the store held is loaded back.
   */
  static async create(opts: NodeOptions, storage?: NodeStorage): Promise<CidxNode> {
    const { params } = resolveSwarm(opts.swarm);
    const timing = resolveTiming(opts.timing);
    const limits = resolveLimits(opts.limits);
    // kad-dht times each query itself (AdaptiveTimeout: 1.2 × a moving average of its queries,
    // 5 s to 60 s); the configured request timeout bounds its queries as it bounds ours.
    const bound = timing.requestTimeoutMs;
    const queryTimeout = { minTimeout: Math.min(5000, bound), maxTimeout: bound };
    const dht = {
      // A lookup returns kad-dht's k closest peers: at least the replicas plus one for failover.
      kBucketSize: Math.max(4, params.replicas + 1),
      networkDialTimeout: queryTimeout,
      ...opts.dht,
    };
    const privateKey: PrivateKey =
      opts.privateKey ?? (await storage?.identity()) ?? (await generateKeyPair('Ed25519'));
    const owned = (await storage?.ownedStore()) ?? new MemoryOwnedStore();
    const datastore = storage?.datastore ?? opts.datastore;
    const libp2p = await createHost({
      ...opts,
      dht,
      privateKey,
      maxConnections: limits.maxConnections,
      pingIntervalMs: timing.pingIntervalMs,
      freshContactMs: timing.freshContactMs,
      refusedBackoffMs: timing.refusedBackoffMs,
      optimisticSelect: timing.optimisticSelect,
      ...(datastore ? { datastore } : {}),
    });
    let node: CidxNode | undefined;
    const parts = assembleNode(libp2p, privateKey, opts, owned, storage, (n) =>
      node?.emit('notification', n),
    );
    node = new CidxNode(libp2p, parts, opts);
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
    const tables = { simulation: this.#simulation, ownPathDepth: this.#ownPathDepth };
    for (const w of this.#parts.tables.start(tables)) this.emit('warning', w);
    await this.libp2p.start();
    await this.#parts.server.start();
    this.libp2p.addEventListener('peer:identify', this.#onIdentify);
    this.#started = true;
    try {
      await joinSwarm({
        libp2p: this.libp2p,
        peers: this.#bootstrap,
        timing: this.timing,
        check: this.#parts.check,
        tables: this.#parts.tables,
        timers: this.#timers,
        warn: (msg) => this.emit('warning', msg),
        // A first estimate of how far a key's closest peers are, before the node's own lookups.
        onSelfLookup: (key, closest) => this.#ctx.holders.recordLookup(key, closest),
      });
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.#timers.every(this.timing.republishIntervalMs, () => this.republish().then(() => {}));
    this.#timers.every(this.timing.expireIntervalMs, async () => {
      this.table.expire(this.#ctx.now());
      await this.#parts.persister.persist();
    });
    // Contacts follow the node's addresses from here on (and catch up with a restart's).
    this.#contacts.start();
    // After a restart the swarm may have moved on: put back what this node owns right away.
    if (this.#ctx.owned.all().length > 0) {
      void this.republish().catch((err) =>
        this.emit('warning', `republish: ${(err as Error).message}`),
      );
    }
  }

  async stop(): Promise<void> {
    this.#timers.clear();
    this.#contacts.stop();
    this.#parts.tables.stop();
    if (!this.#started) return;
    this.#started = false;
    this.libp2p.removeEventListener('peer:identify', this.#onIdentify);
    await this.#parts.server.stop().catch(() => {});
    await this.libp2p.stop();
  }

  /** The k communities most similar to the profile, best first, with their contacts. */
  async search(profile: Profile | unknown, opts: { k?: number } = {}): Promise<CommunityResult[]> {
    const ctx = this.#checked();
    return searchCommunities(ctx, this.#profile(profile), checkK(opts.k ?? this.swarm.params.k));
  }

  /** The best community for each interest of the profile. */
  async join(profile: Profile | unknown, opts: JoinOptions = {}): Promise<JoinResult> {
    if (opts.k !== undefined) checkK(opts.k);
    const ctx = this.#checked();
    return joinCommunities(ctx, this.#profile(profile), opts);
  }

  async create(profile: Profile | unknown, opts: CreateOptions = {}): Promise<ChangeResult> {
    const ctx = this.#checked();
    return createCommunity(ctx, this.#profile(profile), opts);
  }

  /** A new profile (and optionally a new contact list) for a community this node owns. */
  async update(
    id: string,
    profile: Profile | unknown,
    opts: { notify?: number; contacts?: string[] } = {},
  ): Promise<ChangeResult> {
    const ctx = this.#checked();
    return updateCommunity(ctx, id, this.#profile(profile), opts);
  }

  async dissolve(id: string): Promise<{ id: string; dissolved: true }> {
    const ctx = this.#checked();
    return dissolveCommunity(ctx, id);
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
      const report = await this.#serialize(() => republishOwned(this.#ctx));
      this.emit('republished', report);
      // Contacts a failed refresh left behind are tried again with each round.
      this.#contacts.schedule();
      return report;
    } finally {
      this.#republishing = false;
    }
  }

  /**
   * Republishes now the communities whose defaulted contacts differ from the node's dialable
   * addresses (also done on its own when they change); resolves with what changed.
   */
  refreshContacts(): Promise<ContactsChange[]> {
    return this.#contacts.refresh();
  }

  #serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#ownedWork.then(work, work);
    this.#ownedWork = run.catch(() => {});
    return run;
  }

  info(): {
    peerId: string;
    addrs: string[];
    /** Whether others can dial this node (`unknown`: nobody confirmed it yet). */
    reachability: Reachability;
    /** The mode both DHTs run in: `server` nodes are in routing tables and store. */
    dhtMode: DhtMode;
    swarm: ResolvedSwarm['params'];
    /**
     * Peers in the routing tables, open connections, peers of other swarms, and the swarm's
     * size as this node's lookups estimate it (`swarmEstimate`, 0 before its first lookup);
     * dials refused by peers at their connection limit (`refusedDials`) and dials not tried
     * because that peer had refused moments before (`backedOffDials`), since start.
     */
    peers: {
      profiles: number;
      addresses: number;
      connections: number;
      foreign: number;
      swarmEstimate: number;
      refusedDials: number;
      backedOffDials: number;
    };
    stored: ReturnType<IndexTable['stats']>;
    owned: number;
    inbox: number;
  } {
    const reach = this.libp2p.services.reachability;
    const backoff = backoffCounts(this.libp2p);
    return {
      peerId: this.peerId.toString(),
      addrs: this.addrs,
      reachability: reach.reachability,
      dhtMode: reach.dhtMode,
      swarm: this.swarm.params,
      peers: {
        profiles: this.#parts.tables.size('profiles'),
        addresses: this.#parts.tables.size('addresses'),
        connections: this.libp2p.getConnections().length,
        foreign: this.#parts.check.foreign,
        swarmEstimate: Math.round(this.#ctx.holders.swarmSize() ?? 0),
        refusedDials: backoff?.refusals ?? 0,
        backedOffDials: backoff?.skipped ?? 0,
      },
      stored: this.table.stats(),
      owned: this.ownedIds().length,
      inbox: this.inbox.size,
    };
  }

  /**
   * The deadlines this node gives dials, requests and lookups now (ms, from the round trips it
   * observed; the configured timeouts until it saw some) and how many waits ran out before
   * the configured bound.
   */
  waits(): Record<'dial' | 'request' | 'lookup', { deadlineMs: number; timeouts: number }> {
    const w = this.#parts.waits;
    const of = (d: typeof w.dial) => ({ deadlineMs: d.deadline(), timeouts: d.timeouts });
    return { dial: of(w.dial), request: of(w.request), lookup: of(w.lookup) };
  }

  /**
   * Who this node knows: the peer ids in each DHT's routing table, and its open connections
   * (`limited`: through a relay, within the relay's bounds).
   */
  peers(): PeersInfo {
    return {
      routing: {
        profiles: this.#parts.tables.peers('profiles'),
        addresses: this.#parts.tables.peers('addresses'),
      },
      connections: this.libp2p.getConnections().map((c) => ({
        peer: c.remotePeer.toString(),
        addr: c.remoteAddr.toString(),
        direction: c.direction,
        limited: c.limits !== undefined,
      })),
    };
  }

  /** Traffic of the cidx protocol by message type (`out:query`, `in:store-response`, …). */
  traffic(): Record<string, TrafficCounters> {
    return this.meter.snapshot();
  }

  /**
   * The context of an operation, once the swarm check passed: every operation that reads or
   * writes the index goes through here, so none answers from a node in the wrong swarm.
   */
  #checked(): NodeContext {
    this.#parts.check.assert();
    return this.#ctx;
  }

  #profile(p: Profile | unknown): Profile {
    return p instanceof Profile ? p : parseProfile(p, this.#ctx.profileLimits);
  }
}

function checkK(k: number): number {
  if (!Number.isInteger(k) || k < 1 || k > 1000)
    throw new FieldError('k', 'must be an integer in [1, 1000]');
  return k;
}
