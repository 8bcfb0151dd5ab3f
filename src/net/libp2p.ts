/**
 * Assembles the libp2p instance of a cidx node: one host, two Kademlia DHTs on their own
 * protocols and datastore prefixes (ProfilesDHT and AddressesDHT), identify and ping.
 */
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { identify } from '@libp2p/identify';
import type { ComponentLogger, Logger, Metrics, PrivateKey } from '@libp2p/interface';
import { type KadDHT, type KadDHTInit, kadDHT, passthroughMapper } from '@libp2p/kad-dht';
import { memory } from '@libp2p/memory';
import { ping } from '@libp2p/ping';
import { plaintext } from '@libp2p/plaintext';
import { tcp } from '@libp2p/tcp';
import type { Datastore } from 'interface-datastore';
import { createLibp2p, type Libp2p } from 'libp2p';
import { fastClosestPeers } from './kad-closest.ts';

export const PROFILES_DHT_PROTOCOL = '/cidx/profiles/kad/1.0.0';
export const ADDRESSES_DHT_PROTOCOL = '/cidx/addresses/kad/1.0.0';

export type CidxServices = {
  identify: ReturnType<ReturnType<typeof identify>>;
  ping: ReturnType<ReturnType<typeof ping>>;
  profiles: KadDHT;
  addresses: KadDHT;
};
export type CidxLibp2p = Libp2p<CidxServices>;

export interface HostOptions {
  /** `tcp` for real use; `memory` for many nodes in one process. */
  transport: 'tcp' | 'memory';
  /** Listen multiaddrs, e.g. /ip4/127.0.0.1/tcp/0 or /memory/node-1. */
  listen: string[];
  /** Node identity; a fresh Ed25519 key when absent. */
  privateKey?: PrivateKey;
  /** Where both DHTs and the peer store keep their state; in memory when absent. */
  datastore?: Datastore;
  /** Connection encryption: noise (default), or plaintext for in-process simulations only. */
  encryption?: 'noise' | 'plaintext';
  /** Overrides for both DHTs (simulations lengthen intervals, tests shorten them). */
  dht?: Partial<KadDHTInit>;
  /** Most open connections (default 300). */
  maxConnections?: number;
  /** libp2p's Metrics component (the simulator meters the wire through it). */
  metrics?: (components: unknown) => Metrics;
  /**
   * Many nodes in one process: no periodic pings of every connection, and rare background
   * self-queries and routing-table refreshes (a 2000-node swarm would spend its CPU on them).
   */
  simulation?: boolean;
}

function dhtInit(
  name: 'profiles' | 'addresses',
  protocol: string,
  extra: Partial<KadDHTInit>,
): KadDHTInit {
  return {
    protocol,
    // A node stores and answers from the start: loopback and memory addresses never count as
    // public, which would otherwise leave every test or LAN node in client mode.
    clientMode: false,
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
    alpha: 3,
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
function silentLogger(): ComponentLogger {
  const log = Object.assign(() => {}, {
    enabled: false,
    error: () => {},
    trace: () => {},
    newScope: () => log,
  }) as unknown as Logger;
  return { forComponent: () => log };
}

function dhtExtra(o: HostOptions): Partial<KadDHTInit> {
  const sim: Partial<KadDHTInit> = o.simulation ? { querySelfInterval: 3_600_000 } : {};
  return { ...sim, ...o.dht };
}

export async function createHost(o: HostOptions): Promise<CidxLibp2p> {
  if (o.encryption === 'plaintext' && o.transport !== 'memory') {
    throw new Error('plaintext encryption is only for the in-process memory transport');
  }
  const host = await createLibp2p({
    // Started by the node's own start(), after its handlers are in place.
    start: false,
    ...(o.privateKey ? { privateKey: o.privateKey } : {}),
    ...(o.datastore ? { datastore: o.datastore } : {}),
    addresses: { listen: o.listen },
    transports: [o.transport === 'tcp' ? tcp() : memory()],
    connectionEncrypters: [o.encryption === 'plaintext' ? plaintext() : noise()],
    // In a simulation, connections live in one process: nothing idles them out, and yamux's
    // keep-alive pings of every connection cost 3.6% of a 2000-node run's CPU.
    streamMuxers: [yamux(o.simulation ? { enableKeepAlive: false } : {})],
    connectionManager: { maxConnections: o.maxConnections ?? 300 },
    ...(o.metrics ? { metrics: o.metrics } : {}),
    ...(o.simulation ? { connectionMonitor: { enabled: false }, logger: silentLogger() } : {}),
    services: {
      identify: identify(),
      // Both DHTs ping through this one service; one outbound stream per connection floods it.
      ping: ping({ maxOutboundStreams: 64, maxInboundStreams: 64 }),
      profiles: kadDHT(dhtInit('profiles', PROFILES_DHT_PROTOCOL, dhtExtra(o))),
      addresses: kadDHT(dhtInit('addresses', ADDRESSES_DHT_PROTOCOL, dhtExtra(o))),
    },
  });
  if (o.simulation) {
    slowClosestPeerTagging(host);
    // The same answers as kad-dht's scan of the whole table, for a few buckets' work: in one
    // process every node's FIND_NODE answers add up (src/net/kad-closest.ts).
    fastClosestPeers(host.services.profiles);
    fastClosestPeers(host.services.addresses);
  }
  return host;
}

/**
 * Every 5 s each DHT re-tags the peers closest to its node (a keep-alive hint for the
 * connection manager), building peer sets keyed by base58 peer ids. One node pays nothing for
 * it; a thousand in one process paid 8% of a simulation's CPU for it (docs/BENCHMARKS.md).
 * kad-dht does not expose the interval, so a simulation sets it on the tagger before start,
 * through internals that are checked for and left alone if they change.
 */
function slowClosestPeerTagging(host: CidxLibp2p): void {
  for (const dht of [host.services.profiles, host.services.addresses]) {
    const tagger = (
      dht as unknown as { routingTable?: { closestPeerTagger?: { refreshInterval?: unknown } } }
    ).routingTable?.closestPeerTagger;
    if (tagger !== undefined && typeof tagger.refreshInterval === 'number')
      tagger.refreshInterval = 120_000;
  }
}
