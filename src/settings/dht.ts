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
