/**
 * Assembles the libp2p instance of a cidx node: one host, two Kademlia DHTs on their own
 * protocols and datastore prefixes (ProfilesDHT and AddressesDHT), identify and ping, the
 * reachability component that sets both DHTs' mode, and on IP transports the NAT services
 * (AutoNAT, relays, hole punching) of platform.ts.
 */
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { identify } from '@libp2p/identify';
import type {
  ComponentLogger,
  ConnectionGater,
  Logger,
  Metrics,
  PeerId,
  PeerStore,
  PrivateKey,
  Transport,
} from '@libp2p/interface';
import { type KadDHT, type KadDHTInit, kadDHT, passthroughMapper } from '@libp2p/kad-dht';
import { ping } from '@libp2p/ping';
import { plaintext } from '@libp2p/plaintext';
import { preSharedKey } from '@libp2p/pnet';
import type { Datastore } from 'interface-datastore';
import { createLibp2p, type Libp2p } from 'libp2p';
import { ParamsError } from '../keys/params.ts';
import { SETTINGS } from '../settings/table.ts';
import { cheapClosestPeerTagging } from './closest-tagging.ts';
import { INDEX_PROTOCOL } from './codec.ts';
import { lighterConnectionManager } from './connection-manager.ts';
import { answerFreshPings, FreshContacts } from './fresh-contacts.ts';
import { fastClosestPeers } from './kad-closest.ts';
import {
  SIMULATION_QUERY_INTERVAL_MS,
  slowClosestPeerTagging,
  slowOldContactPings,
  slowRoutingTableRefresh,
} from './kad-internals.ts';
import { LazyUpgrade } from './lazy-upgrade.ts';
import { guardMuxer } from './muxer-guard.ts';
import { optimisticSelect } from './optimistic-select.ts';
import { splitOwnPath } from './own-path-buckets.ts';
import { cachePeerRecords } from './peer-cache.ts';
import {
  connectionGater,
  type Factory,
  type HostTransport,
  natServices,
  transports,
} from './platform.ts';
import { ADDRESSES_DHT_PROTOCOL, PROFILES_DHT_PROTOCOL } from './protocols.ts';
import {
  type DhtMode,
  initialDhtMode,
  isPrivateSwarm,
  REACHABILITY_MODES,
  type ReachabilityMode,
  type ReachabilityService,
  reachabilityService,
} from './reachability.ts';
import { backOffAfterRefusal } from './refusal-backoff.ts';
import { type RelaySettings, resolveRelay } from './relay.ts';
import { identifySealsOnce } from './self-record.ts';
import { streamsSkipKnownProtocols } from './stream-protocols.ts';
import { parseSwarmKey } from './swarm-key.ts';
import { identifyUnsigned } from './unsigned-identify.ts';
import { USER_AGENT } from './version.ts';
import { walkPacer } from './walk-pacer.ts';

export { ADDRESSES_DHT_PROTOCOL, PROFILES_DHT_PROTOCOL };

export type CidxServices = {
  identify: ReturnType<ReturnType<typeof identify>>;
  ping: ReturnType<ReturnType<typeof ping>>;
  profiles: KadDHT;
  addresses: KadDHT;
  reachability: ReachabilityService;
};
export type CidxLibp2p = Libp2p<CidxServices>;

/** What libp2p hands a transport factory (a subset of its components). */
export interface TransportComponents {
  peerId: PeerId;
  logger: ComponentLogger;
}

export interface HostOptions {
  /**
   * `tcp` for real use (TCP and WebSockets listen addresses, /p2p-circuit dials); `memory` for
   * many nodes in one process; `websockets` for a web page.
   */
  transport: HostTransport;
  /**
   * An in-process transport used instead of the memory one (with `transport: 'memory'`): the
   * simulator's network model gives connections delay, bandwidth and partitions this way.
   */
  transportFactory?: (components: TransportComponents) => Transport;
  /** Refuses connections libp2p would open or accept (the simulator's partitions). */
  connectionGater?: ConnectionGater;
  /**
   * Listen multiaddrs, e.g. /ip4/127.0.0.1/tcp/0, /ip4/0.0.0.0/tcp/4002/ws or /memory/node-1.
   * A node that cannot be dialled also listens on /p2p-circuit (see `relay.reservations`).
   */
  listen: string[];
  /** Node identity; a fresh Ed25519 key when absent. */
  privateKey?: PrivateKey;
  /** Where both DHTs and the peer store keep their state; in memory when absent. */
  datastore?: Datastore;
  /** Connection encryption: noise (default), or plaintext for in-process simulations only. */
  encryption?: 'noise' | 'plaintext';
  /**
   * Overrides for both DHTs (simulations lengthen intervals, tests shorten them): kad-dht's
   * options, and `ownPathDepth` (own-path-buckets.ts).
   */
  dht?: Partial<KadDHTInit> & { ownPathDepth?: number };
  /** Most open connections (default 300, `limits.maxConnections`). */
  maxConnections?: number;
  /**
   * How often libp2p's connection monitor pings every connection (ms; 0: no monitor; default
   * libp2p's 10 s). A simulation never runs it.
   */
  pingIntervalMs?: number;
  /**
   * How long a peer offered to a routing table counts as alive for the table's pings (ms;
   * 0: every ping goes to the network; default the setting's). See fresh-contacts.ts.
   */
  freshContactMs?: number;
  /** How long a peer that refused a connection is not dialled again (ms; 0: at once). */
  refusedBackoffMs?: number;
  /**
   * Whether the DHTs' and cidx's requests go with their protocol's name, without waiting for its
   * acknowledgement (default the setting's). See optimistic-select.ts.
   */
  optimisticSelect?: boolean;
  /** libp2p's Metrics component (the simulator meters the wire through it). */
  metrics?: (components: unknown) => Metrics;
  /**
   * Many nodes in one process: no periodic pings of every connection, and rare background
   * self-queries and routing-table refreshes (a 2000-node swarm would spend its CPU on them).
   */
  simulation?: boolean;
  /**
   * Whether peers can dial this node (default `public`: serve both DHTs, as every in-process
   * node does). `private`: client mode, reached through relays. `auto`: client mode until
   * AutoNAT confirms a public address — or from the start in a swarm numbered in private ranges
   * (isPrivateSwarm of `bootstrap`).
   */
  reachability?: ReachabilityMode;
  /** The swarm's bootstrap peers: `auto` looks at their addresses (see `reachability`). */
  bootstrap?: string[];
  /**
   * Whether the swarm is numbered in private ranges, for `auto` (default: isPrivateSwarm of
   * `bootstrap`). False makes `auto` wait for AutoNAT even on a private-range network, as a
   * NAT test bed numbered in private ranges needs.
   */
  privateSwarm?: boolean;
  /**
   * Whether identify sends the node's signed peer record (default the setting's, yes). See
   * unsigned-identify.ts.
   */
  peerRecords?: boolean;
  /** Relay reservations and relay bounds (DEFAULT_RELAY). */
  relay?: Partial<RelaySettings>;
  /**
   * A private swarm's pre-shared key (the key file's bytes, see swarm-key.ts): connections to
   * peers without the same key fail.
   */
  swarmKey?: Uint8Array;
}

const KAD_STREAMS_PER_CONNECTION = 256;

function dhtInit(
  name: 'profiles' | 'addresses',
  protocol: string,
  mode: DhtMode,
  extra: Partial<KadDHTInit>,
): KadDHTInit {
  return {
    protocol,
    // Set explicitly: left undefined, kad-dht would pick its mode from whether our addresses
    // include a public one (never true on loopback, a LAN or in memory). The reachability
    // component switches both DHTs together instead.
    clientMode: mode === 'client',
    // The default mapper drops private addresses, which would ignore loopback and LAN peers.
    peerInfoMapper: passthroughMapper,
    // A swarm of one must work: do not wait for a first peer before answering lookups.
    allowQueryWithZeroPeers: true,
    // kad-dht's defaults (k = 20, alpha = disjoint paths = 10) make every lookup in a small
    // swarm query all of it; cidx needs only the few closest peers of a key (replicas, 3 by
    // default, plus failover). alpha = 3 as in the Kademlia paper. k = 4 (replicas + 1): a lookup
    // queries at least its k starting peers, and every answer lists k peers, so k sets most of a
    // lookup's cost — on a 100-node swarm k = 8 → 4 took lookups from 9.1 to 5.0 queries and
    // ProfilesDHT bytes per search from 101 to 29 KiB, with the same search results
    // (docs/BENCHMARKS.md, bench:baseline). A node with more replicas asks for more (node.ts).
    kBucketSize: 4,
    prefixLength: SETTINGS.dht.prefixLength.default,
    alpha: SETTINGS.dht.alpha.default,
    // A search looks its n keys up at once, and each lookup queries the same few neighbours
    // from the routing table first: at kad-dht's 32 streams per connection the rest were reset
    // and retried, and the lookups of one search took up to ten times as long (docs/BENCHMARKS.md,
    // bench:wan). The same bound as cidx's own streams (limits.maxInboundStreams).
    maxInboundStreams: KAD_STREAMS_PER_CONNECTION,
    maxOutboundStreams: KAD_STREAMS_PER_CONNECTION,
    datastorePrefix: `/dht-${name}`,
    logPrefix: `libp2p:dht-${name}`,
    metricsPrefix: `libp2p_dht_${name}`,
    ...extra,
  };
}

/**
 * A logger that logs nothing: in a simulation, creating thousands of debug loggers (one per
 * stream and connection, each probing the terminal) cost several percent of the CPU.
 */
export function silentLogger(): ComponentLogger {
  const log = Object.assign(() => {}, {
    enabled: false,
    error: () => {},
    trace: () => {},
    newScope: () => log,
  }) as unknown as Logger;
  return { forComponent: () => log };
}

function dhtExtra(o: HostOptions): Partial<KadDHTInit> {
  const interval =
    o.dht?.querySelfInterval ??
    (o.simulation ? SIMULATION_QUERY_INTERVAL_MS : QUERY_SELF_INTERVAL_MS);
  return {
    querySelfInterval: interval,
    // kad-dht looks its own id up one second after it starts, on each DHT; the join does that
    // once (bootstrap.ts), and both DHTs learn the peers it meets. The first of kad-dht's own
    // self-lookups comes one interval later: three self-lookups per join were two too many.
    initialQuerySelfInterval: interval,
    ...o.dht,
  };
}

/** kad-dht's default interval between self-lookups (its QUERY_SELF_INTERVAL, not exported). */
const QUERY_SELF_INTERVAL_MS = 5 * 60_000;

/**
 * The listen addresses: the given ones, plus one /p2p-circuit per relay reservation when the
 * node may not be dialable (libp2p reserves a slot at a relay for each, among the peers it meets
 * that offer one, and advertises the resulting /p2p-circuit addresses).
 */
function listenAddrs(
  o: HostOptions,
  mode: ReachabilityMode,
  privateSwarm: boolean,
  relay: RelaySettings,
): string[] {
  const behindNat = mode === 'private' || (mode === 'auto' && !privateSwarm);
  if (o.transport === 'memory' || !behindNat) return o.listen;
  const own = o.listen.filter((a) => a !== '/p2p-circuit');
  return [...own, ...Array.from({ length: relay.reservations }, () => '/p2p-circuit')];
}

/** The protocols every node of a swarm speaks: their requests need not wait for the name's echo. */
const SWARM_PROTOCOLS = new Set([PROFILES_DHT_PROTOCOL, ADDRESSES_DHT_PROTOCOL, INDEX_PROTOCOL]);

/**
 * yamux, whose connection closes when it stops (muxer-guard.ts), with the swarm's protocols named
 * optimistically when that is on. A peer that refused one (it is no cidx node) has the protocol
 * libp2p recorded for it taken out of the peer store: the stream was still among its
 * connection's when the refusal came.
 */
export function streamMuxer(
  o: Pick<HostOptions, 'simulation' | 'optimisticSelect'>,
  host: () => Libp2p | undefined,
) {
  const m = guardMuxer(
    yamux({
      // Streams a peer opens before this side's upgrade has finished wait for it. js yamux
      // keeps 10 and then aborts the whole connection — a dialer's first lookup, sent as soon
      // as its own side is ready, opens more; the yamux spec says to keep at least 256.
      maxEarlyStreams: 256,
      // In a simulation, connections live in one process: nothing idles them out, and yamux's
      // keep-alive pings of every connection cost 3.6% of a 2000-node run's CPU.
      ...(o.simulation ? { enableKeepAlive: false } : {}),
    }),
  );
  const optimistic = o.optimisticSelect ?? SETTINGS.timing.optimisticSelect.default;
  if (!optimistic) return m;
  return optimisticSelect(
    m,
    (p) => SWARM_PROTOCOLS.has(p),
    (stream, protocol) => {
      const h = host();
      const conn = h?.getConnections().find((c) => c.streams.includes(stream));
      if (h !== undefined && conn !== undefined)
        void forgetProtocol(h.peerStore, conn.remotePeer, protocol);
    },
  );
}

async function forgetProtocol(peerStore: PeerStore, peer: PeerId, protocol: string) {
  try {
    const { protocols } = await peerStore.get(peer);
    if (protocols.includes(protocol)) {
      await peerStore.patch(peer, { protocols: protocols.filter((p) => p !== protocol) });
    }
  } catch {
    // The peer was forgotten meanwhile: nothing to take out.
  }
}

/** The own-path depth these DHT options ask for, the setting's default if none. */
export function ownPathDepthOf(dht: HostOptions['dht']): number {
  return dht?.ownPathDepth ?? SETTINGS.dht.ownPathDepth.default;
}

export async function createHost(o: HostOptions): Promise<CidxLibp2p> {
  if (o.encryption === 'plaintext' && o.transport !== 'memory') {
    throw new Error('plaintext encryption is only for the in-process memory transport');
  }
  if (o.transportFactory !== undefined && o.transport !== 'memory') {
    throw new Error('a custom transport replaces the in-process memory transport only');
  }
  const mode = o.reachability ?? 'public';
  if (!REACHABILITY_MODES.includes(mode))
    throw new ParamsError('reachability', `must be one of ${REACHABILITY_MODES.join(', ')}`);
  const relay = resolveRelay(o.relay);
  const privateSwarm = o.privateSwarm ?? isPrivateSwarm(o.bootstrap ?? []);
  const dhtMode = initialDhtMode(mode, privateSwarm);
  const gater = o.connectionGater ?? connectionGater();
  // The muxer's refusals reach the peer store through the host, which exists once created.
  let created: Libp2p | undefined;
  // With names sent ahead, a new connection's encryption and muxer are proposed that way too.
  const lazy =
    (o.optimisticSelect ?? SETTINGS.timing.optimisticSelect.default)
      ? new LazyUpgrade()
      : undefined;
  const dialling = (fs: Factory[]) => (lazy === undefined ? fs : fs.map((f) => lazy.transport(f)));
  const psk = (key: Uint8Array) => preSharedKey({ psk: parseSwarmKey(key) });
  const host = (await createLibp2p({
    // Started by the node's own start(), after its handlers are in place.
    start: false,
    nodeInfo: { userAgent: USER_AGENT },
    ...(o.privateKey ? { privateKey: o.privateKey } : {}),
    ...(o.datastore ? { datastore: o.datastore } : {}),
    addresses: { listen: listenAddrs(o, mode, privateSwarm, relay) },
    transports: dialling(
      o.transport === 'memory' && o.transportFactory !== undefined
        ? [o.transportFactory]
        : transports(o.transport),
    ),
    connectionEncrypters: [o.encryption === 'plaintext' ? plaintext() : noise()],
    ...(o.swarmKey
      ? { connectionProtector: lazy ? lazy.protector(psk(o.swarmKey)) : psk(o.swarmKey) }
      : {}),
    ...(gater ? { connectionGater: gater } : {}),
    // Relay discovery and AutoNAT walk the DHTs (not in-process: no NAT services there).
    ...(o.transport === 'memory' ? {} : { peerRouters: [walkPacer()] }),
    streamMuxers: [streamMuxer(o, () => created)],
    connectionManager: { maxConnections: o.maxConnections ?? 300 },
    ...(o.metrics ? { metrics: o.metrics } : {}),
    connectionMonitor: {
      enabled: !o.simulation && o.pingIntervalMs !== 0,
      pingInterval: o.pingIntervalMs,
    },
    ...(o.simulation ? { logger: silentLogger() } : {}),
    services: {
      identify: identify(),
      // Both DHTs ping through this one service; one outbound stream per connection floods it.
      ping: ping({ maxOutboundStreams: 64, maxInboundStreams: 64 }),
      profiles: kadDHT(dhtInit('profiles', PROFILES_DHT_PROTOCOL, dhtMode, dhtExtra(o))),
      addresses: kadDHT(dhtInit('addresses', ADDRESSES_DHT_PROTOCOL, dhtMode, dhtExtra(o))),
      ...natServices(o.transport, mode, relay),
      reachability: reachabilityService({ mode, privateSwarm }),
    },
  })) as CidxLibp2p;
  created = host;
  // Records read and written again within moments answered from memory (peer-cache.ts).
  cachePeerRecords(host.peerStore);
  // Costs of libp2p that grow with the node's connections, cut (connection-manager.ts).
  lighterConnectionManager(host);
  // A peer that refused a connection is not dialled again at once (refusal-backoff.ts).
  backOffAfterRefusal(host, o.refusedBackoffMs ?? SETTINGS.timing.refusedBackoffMs.default);
  // One signed peer record per set of addresses, not one per connection (self-record.ts)…
  identifySealsOnce(host);
  // …or none on the wire, if so set (unsigned-identify.ts).
  if (!(o.peerRecords ?? SETTINGS.peerRecords.default)) identifyUnsigned(host);
  // A stream's protocol written to the peer store only when the record lacks it.
  streamsSkipKnownProtocols(host);
  host.services.reachability.attach([host.services.profiles, host.services.addresses]);
  // One record for both DHTs: a peer that answered either is alive for both.
  const fresh = new FreshContacts(o.freshContactMs ?? SETTINGS.timing.freshContactMs.default);
  const connected = (p: PeerId) => host.getConnections(p).length > 0;
  answerFreshPings(host.services.profiles, fresh, connected);
  answerFreshPings(host.services.addresses, fresh, connected);
  host.addEventListener('peer:disconnect', (e) => fresh.forget(e.detail));
  // The closest-peer tagger's rounds cost nothing while its list stays the same.
  cheapClosestPeerTagging(host.services.profiles);
  cheapClosestPeerTagging(host.services.addresses);
  const ownPath = ownPathDepthOf(o.dht);
  if (ownPath > 0) {
    // Checked at start (kadInternalsMissing): a node warns if the k-bucket tree was not found.
    splitOwnPath(host.services.profiles, ownPath);
    splitOwnPath(host.services.addresses, ownPath);
  }
  if (o.simulation) {
    // Checked at start (kadInternalsMissing): a node warns if the tagger, the refresh or the
    // old contacts' age was not found.
    for (const dht of [host.services.profiles, host.services.addresses]) {
      slowClosestPeerTagging(dht);
      slowRoutingTableRefresh(dht);
      slowOldContactPings(dht);
    }
    // The same answers as kad-dht's scan of the whole table, for a few buckets' work: in one
    // process every node's FIND_NODE answers add up (src/net/kad-closest.ts).
    fastClosestPeers(host.services.profiles);
    fastClosestPeers(host.services.addresses);
  }
  return host;
}
