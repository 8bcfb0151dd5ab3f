/** What a node accepts and keeps: sizes, counts, quotas and rates. */
import { int } from './kinds.ts';
import { MAX_REPLICAS } from './swarm.ts';

/** The most forwards a routed read may ask for (the wire's bound): more than any swarm needs. */
export const MAX_ROUTE_HOPS = 8;

const UNBOUNDED = Number.POSITIVE_INFINITY;
const MIB = 1024 * 1024;

const limit = (flag: string, help: string, dflt: number, min = 1, max = UNBOUNDED) =>
  int({ flag, arg: '<n>', help, category: 'limits', default: dflt, min, max });

export const LIMITS = {
  maxFrameBytes: limit(
    'max-frame-bytes',
    'largest frame sent or accepted (bytes)',
    2 * MIB,
    4096,
    1024 * MIB,
  ),
  maxAttributes: limit('max-attributes', 'most attributes of a profile', 4096),
  maxRelations: limit('max-relations', 'most relations of a profile', 131_072),
  // As many as an LSH index has keys (n = 20): a search's lookups and queries all start at once,
  // and the search waits for its slowest key instead of three waves of them (docs/BENCHMARKS.md,
  // bench:wan). Per-attribute profiles have more keys: they go 20 at a time.
  concurrency: {
    ...limit('concurrency', 'keys one operation handles at once', 20),
    scenario: { statement: 'params', key: 'concurrency' },
  },
  queryReplicas: {
    ...limit(
      'query-replicas',
      'replicas a search asks per key (the closest that answer)',
      1,
      1,
      MAX_REPLICAS,
    ),
    scenario: { statement: 'params', key: 'queryReplicas' },
  },
  // Reads ahead buy round trips with bytes (docs/BENCHMARKS.md, "reads ahead off"); 0 is for a
  // deployment that pays for bytes before time.
  readsAhead: {
    ...limit(
      'reads-ahead',
      'requests a lookup sends ahead, per answer it wants, to the closest peers heard of so far; 0 also keeps a search from fetching its best candidates before its last key answers (fewer bytes, more round trips)',
      3,
      0,
      20,
    ),
    scenario: { statement: 'params', key: 'readsAhead' },
  },
  // A peer farther from a key than a few times the distance its closest usually is (learnt
  // from the node's lookups) is seldom the lookup's final closest: the query ahead to it was
  // bytes spent for nothing (docs/BENCHMARKS.md, "Reads ahead only near the key": fewer
  // bytes, the same round trips). The estimate is widened while a node has looked up little.
  aheadRadius: {
    ...limit(
      'ahead-radius',
      "reads ahead go in full only to peers within this many times the expected distance of a key's closest peer, as the node's lookups estimate it (smaller: fewer bytes, more round trips); 0: to any",
      3,
      0,
      1000,
    ),
    scenario: { statement: 'params', key: 'aheadRadius' },
  },
  // A search waits for its slowest key, and on a wide-area network the last keys are those
  // whose lookups meet far, new peers (docs/RESULTS.md, "Where a search's last round trips
  // go"). An LSH band is one of n chances to meet a similar community: a search that drops its
  // last tenth of keys ends sooner and finds as well, within the runs' spread (docs/
  // BENCHMARKS.md, "A search that ends on most of its keys"); 75 ended no sooner. Exact
  // (attribute) mode asks every key whatever this says.
  searchQuorum: {
    ...limit(
      'search-quorum',
      "percentage of an LSH search's keys whose answers end it; the keys still being asked then are dropped (fewer round trips, a little less recall; 100: wait for every key); searches of the attribute index ask every key",
      90,
      1,
      100,
    ),
    scenario: { statement: 'params', key: 'searchQuorum' },
  },
  // A key's replicas are within two or three hops of most nodes over the connections a swarm
  // already holds, where a lookup meets new peers at three round trips each (src/net/route.ts,
  // docs/BENCHMARKS.md).
  routeHops: {
    ...limit(
      'route-hops',
      "hops a search's reads may be handed on over open connections towards a key's replicas before the key is looked up instead; also the most this node forwards a peer's read; 0: no routing (every read after a lookup)",
      4,
      0,
      MAX_ROUTE_HOPS,
    ),
    scenario: { statement: 'params', key: 'routeHops' },
  },
  // Past a few thousand nodes routes stop short of the replicas more often (a node's
  // connections are a smaller share of the swarm), and the requester's lookup then dials
  // several far peers; a forwarder near the key reaches them in one dial (src/net/route.ts).
  routeDials: {
    ...limit(
      'route-dials',
      "peers of its routing table a forwarder with no connected peer closer to the key tries, dialling them, before the read's requester looks the key up instead; 0: the route ends there",
      2,
      0,
      MAX_ROUTE_HOPS,
    ),
    scenario: { statement: 'params', key: 'routeDials' },
  },
  // libp2p's own default, kept: every open connection costs memory and idle CPU
  // (docs/BENCHMARKS.md, "What an open connection costs a node"). Past it a node refuses every
  // inbound connection (its own dials are not limited), and the holders of popular keys fill
  // first ("Refused connections at 2000 nodes"): busy nodes with memory to spare raise it.
  maxConnections: {
    ...limit(
      'max-connections',
      "most open connections (libp2p's connection limit); past it inbound connections are refused",
      300,
      8,
      100_000,
    ),
    scenario: { statement: 'params', key: 'maxConnections' },
  },
  inboxCapacity: limit('inbox-capacity', 'notifications the inbox keeps', 10_000),
  inboxFilterCells: limit(
    'inbox-filter-cells',
    "cells (bytes) of the inbox's duplicate filter",
    1 << 20,
    1024,
  ),
  maxInboundStreams: limit(
    'max-inbound-streams',
    'cidx streams one connection may have open at once',
    256,
  ),
  quotaPerOwnerPerKey: limit(
    'quota-per-owner-per-key',
    'descriptors one owner may keep on this node under one key',
    64,
  ),
  quotaPerOwner: limit(
    'quota-per-owner',
    'descriptors one owner may keep on this node in all',
    20_000,
  ),
  // A republish round of many communities sends bursts of stores to the same few peers in a
  // small swarm; 1000/s leaves those alone and still caps a flooding peer.
  peerRequestsPerSecond: limit(
    'peer-requests-per-second',
    'cidx requests one peer may make per second; beyond, it is told busy',
    1000,
  ),
} as const;
