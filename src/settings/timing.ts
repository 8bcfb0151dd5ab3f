/** How often a node acts and how long what it stores lives; durations in ms. */
import { bool, duration, int } from './kinds.ts';
import type { ConfigOf } from './tree.ts';

/** Longest timer: Node runs a longer setTimeout after 1 ms, so every duration stays below 2³¹ ms. */
export const MAX_DURATION_MS = 24 * 24 * 3_600_000;

const timing = (
  flag: string,
  help: string,
  ms: number,
  scenarioKey?: string,
  min = 1,
): ReturnType<typeof duration> =>
  duration({
    flag,
    arg: '<duration>',
    help,
    category: 'timing',
    default: ms,
    min,
    max: MAX_DURATION_MS,
    ...(scenarioKey === undefined
      ? {}
      : { scenario: { statement: 'timing' as const, key: scenarioKey } }),
  });

export const TIMING = {
  requestTimeoutMs: timing(
    'request-timeout',
    'bound on one request and its answer, dial included',
    10_000,
    'request',
  ),
  lookupTimeoutMs: timing(
    'lookup-timeout',
    'bound on one DHT lookup of the closest peers',
    20_000,
    'lookup',
  ),
  republishIntervalMs: timing(
    'republish-interval',
    'how often owners store their records again',
    30 * 60_000,
    'republish',
  ),
  recordTtlMs: timing(
    'record-ttl',
    'how long a record lives without a republish; more than republish-interval',
    2 * 3_600_000,
    'ttl',
  ),
  tombstoneTtlMs: timing(
    'tombstone-ttl',
    "how long a dissolved community's tombstone lives; at least record-ttl",
    4 * 3_600_000,
    'tombstone',
  ),
  expireIntervalMs: timing(
    'expire-interval',
    'how often expired records are swept',
    60_000,
    'expire',
  ),
  bootstrapRetryMs: timing(
    'bootstrap-retry',
    'how often the bootstrap peers are retried while no peer is known',
    10_000,
  ),
  // Off: on the corpus workload (100 nodes, 40 searches) a 30 s cache saved 3.6% of the
  // lookups and no measurable bytes, while a stale entry can skip a closer peer that joined.
  closestCacheMs: timing(
    'closest-cache',
    "how long a key's closest peers are reused before a new lookup (0: never)",
    0,
    'cache',
    0,
  ),
  // kad-dht pings every peer before adding it to a routing table, though it offers only peers
  // that have just answered it (src/net/fresh-contacts.ts).
  freshContactMs: timing(
    'fresh-contact',
    "how long a peer that just answered the DHTs counts as alive for their routing tables' pings (0: always ping)",
    10_000,
    'fresh',
    0,
  ),
  // libp2p dials a peer that refused again at once, and refusals at popular nodes' connection
  // limit were most of what a search dialled at 2000 nodes (src/net/refusal-backoff.ts).
  refusedBackoffMs: timing(
    'refused-backoff',
    'how long a peer that refused a connection (at its connection limit) is not dialled again; 0: dial at once, as libp2p does',
    30_000,
    'refusedBackoff',
    0,
  ),
  // multistream-select waits for a protocol's acknowledgement before the first byte of every
  // stream, and of a new connection's encryption and muxer: a round trip per request, and one
  // or two per connection (src/net/optimistic-select.ts, src/net/lazy-upgrade.ts).
  optimisticSelect: bool({
    flag: 'optimistic-select',
    arg: '',
    help: "send a DHT or cidx request with its protocol's name, and a new connection's handshake with its encryption's name, instead of after the name's acknowledgement (a round trip less per request and per connection)",
    category: 'timing',
    default: true,
    scenario: { statement: 'timing', key: 'optimistic' },
  }),
  // kad-dht ends a lookup when every query it sent has ended, on every disjoint path: a
  // lookup waited for its slowest path's farthest query (src/net/closest.ts, LookupStop).
  // Six, not kad-dht's k = 4: a few more closest peers heard from kept the answers those of a
  // full lookup (docs/RESULTS.md, "A lookup ends when its closest peers have answered").
  lookupConverged: int({
    flag: 'lookup-converged',
    arg: '<n>',
    help: "end a DHT lookup once the n closest peers it has heard of have all answered (Kademlia's rule), without waiting for its queries to farther peers (0: when every query has ended, as kad-dht does)",
    category: 'timing',
    default: 6,
    min: 0,
    max: 64,
    scenario: { statement: 'timing', key: 'converged' },
  }),
  // libp2p's own interval. Each ping is a new stream with its protocol negotiation on every
  // open connection, at both ends: many node processes sharing a few cores spend most of their
  // CPU on them (bench:modes), and a ping that times out closes the connection.
  pingIntervalMs: timing(
    'ping-interval',
    'how often every open connection is pinged, and closed if the ping fails (0: never; in-process simulations never ping)',
    10_000,
    'ping',
    0,
  ),
  // A node reserves its relay slots one after the other within about a second: one new
  // version for both, not one per reservation.
  contactsSettleMs: timing(
    'contacts-settle',
    "how long the node's dialable addresses stay unchanged before communities whose contacts follow them are republished",
    2_000,
  ),
} as const;

export type Timing = ConfigOf<typeof TIMING>;

/** Rules across timing settings: each names the setting it blames. */
export const TIMING_RULES: { field: keyof Timing; problem: string; holds(t: Timing): boolean }[] = [
  {
    // A tombstone must outlive every stale copy of the community's records.
    field: 'tombstoneTtlMs',
    problem: 'must be at least recordTtlMs (record-ttl)',
    holds: (t) => t.tombstoneTtlMs >= t.recordTtlMs,
  },
  {
    field: 'recordTtlMs',
    problem:
      'must exceed republishIntervalMs (republish-interval), or records expire between republishes',
    holds: (t) => t.recordTtlMs > t.republishIntervalMs,
  },
];
