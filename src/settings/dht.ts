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
  // that depth keeps the first k peers it met: at kad-dht's 6 and k = 4, a key's neighbourhood
  // beyond 256 nodes was known by its oldest few nodes only, lookups and stores ended there,
  // and every later node of it was in nobody's table, yet counted itself a replica
  // (docs/BENCHMARKS.md, "Routing tables deep enough for the swarm"). 16 resolves a key's
  // closest peers up to k × 2^16 nodes; a table still holds only the peers met.
  prefixLength: int({
    flag: 'dht-prefix-length',
    arg: '<bits>',
    help: "depth of kad-dht's routing-table trie: a key's closest peers are told apart in swarms of up to k × 2^bits nodes (kad-dht's own default is 6)",
    category: 'dht',
    default: 16,
    min: 1,
    max: 64,
    scenario: { statement: 'params', key: 'prefix' },
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
