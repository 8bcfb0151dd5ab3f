/** kad-dht's settings, the same on both DHTs (ProfilesDHT and AddressesDHT). */
import { int } from './kinds.ts';

export const DHT = {
  kBucketSize: int({
    flag: 'dht-bucket-size',
    arg: '<k>',
    help: "kad-dht's k: peers per bucket and per lookup answer",
    category: 'dht',
    default: undefined,
    defaultText: 'max(4, replicas + 1)',
    min: 1,
    max: 256,
    scenario: { statement: 'params', key: 'bucket' },
  }),
  // kad-dht's routing table is a trie that splits any full bucket down to this depth, and at
  // that depth keeps the first k peers it met: at 6 bits and k = 4, past 256 nodes a key's later
  // neighbours are in few tables, and count themselves replicas while holding nothing. 16 bits
  // ended that and cut a search's messages at 2000 nodes, but at 10,000 nodes the tables of
  // every peer met took the simulation past 20 GiB and slowed its joins, creates and searches
  // (docs/BENCHMARKS.md, "Routing tables deep enough for the swarm"): kad-dht's 6 stays.
  prefixLength: int({
    flag: 'dht-prefix-length',
    arg: '<bits>',
    help: "depth of kad-dht's routing-table trie: a key's closest peers are told apart in swarms of up to k × 2^bits nodes; deeper tables hold more of the peers met",
    category: 'dht',
    default: 6,
    min: 1,
    max: 64,
    scenario: { statement: 'params', key: 'prefix' },
  }),
  // Kademlia's own rule (src/net/own-path-buckets.ts): deep buckets only near a node's own id.
  ownPathDepth: int({
    flag: 'dht-own-path-depth',
    arg: '<bits>',
    help: "depth to which the routing-table buckets on the path of the node's own id may split, past dht-prefix-length (Kademlia's rule: a node knows its own neighbourhood in full); 0: off",
    category: 'dht',
    default: 0,
    min: 0,
    max: 64,
    scenario: { statement: 'params', key: 'ownPath' },
  }),
  alpha: int({
    flag: 'dht-alpha',
    arg: '<a>',
    help: 'queries a lookup keeps in flight',
    category: 'dht',
    default: 3,
    min: 1,
    max: 64,
    scenario: { statement: 'params', key: 'alpha' },
  }),
  disjointPaths: int({
    flag: 'dht-paths',
    arg: '<d>',
    help: 'disjoint paths of a lookup',
    category: 'dht',
    default: undefined,
    defaultText: 'dht-alpha',
    min: 1,
    max: 64,
    scenario: { statement: 'params', key: 'paths' },
  }),
} as const;
