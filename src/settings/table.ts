/**
 * Every setting of a cidx node, declared once: name (the key in the config file), kind and
 * range, default, help, --help category, flag — and, when a scenario may set it, the scenario
 * statement and key. From this table derive the `cidx node` flags, the CIDX_* environment
 * variables, the config-file schema, `--help` and `--print-config` (src/cli/settings-cli.ts,
 * src/cli/node-config.ts), the scenario keys of `index`, `params` and `timing` (sim/), and the
 * library's defaults and checks (`resolveTiming`, `resolveLimits` in src/node/config.ts,
 * `resolveSwarm` in src/index/swarm.ts).
 *
 * Adding a setting:
 *  1. Declare it below in the group it belongs to: the config key is its place in the tree
 *     (`limits.myLimit`); flag and help are required; the environment variable follows from the
 *     flag (CIDX_MY_LIMIT). Give it `scenario: { statement, key }` if scenarios may set it.
 *  2. Under `timing`, `limits` or `dht` it reaches the node at once (NodeOptions.timing, …,
 *     typed from this table). A setting of a new group also needs its line in
 *     `nodeOptionsFrom` (src/node/config.ts); a setting only the process uses (like `rpc`) is
 *     read by src/cli/node-run.ts.
 *  3. A rule across settings (one must exceed another) goes into TIMING_RULES or beside it.
 *  4. test/settings.test.ts checks every setting's flag, environment variable, config key and
 *     scenario key from the table; nothing to add there unless the kind is new.
 * Layer: pure data over src/profile and src/keys constants; every other layer may import it.
 */
import {
  DEFAULT_BITS,
  DEFAULT_FAMILY,
  FAMILIES,
  MAX_M,
  MAX_N,
  MAX_SEED_BYTES,
} from '../keys/params.ts';
import { choice, duration, int, list, text } from './kinds.ts';
import type { ConfigOf } from './tree.ts';

/** Most results a search, a responder or a notification round handles; also the wire's bound. */
export const MAX_K = 1000;
/**
 * Most peers holding a key's records. kad-dht's own bucket size (20): a node asks its DHTs for
 * replicas + 1 closest peers, and kad-dht's lookups and routing tables are built around k ≤ 20.
 */
export const MAX_REPLICAS = 20;
/** Longest timer: Node runs a longer setTimeout after 1 ms, so every duration stays below 2³¹ ms. */
export const MAX_DURATION_MS = 24 * 24 * 3_600_000;
const UNBOUNDED = Number.POSITIVE_INFINITY;
const MIB = 1024 * 1024;

export const LOG_LEVELS = ['silent', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export const INDEX_MODES = ['attribute', 'lsh'] as const;

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

const limit = (flag: string, help: string, dflt: number, min = 1, max = UNBOUNDED) =>
  int({ flag, arg: '<n>', help, category: 'limits', default: dflt, min, max });

export const SETTINGS = {
  listen: list({
    flag: 'listen',
    arg: '<multiaddr>',
    help: 'listen address, repeatable',
    category: 'node',
    default: ['/ip4/127.0.0.1/tcp/0'],
    minItems: 1,
  }),
  bootstrap: list({
    flag: 'bootstrap',
    arg: '<multiaddr>',
    help: 'a peer of the swarm to join through (…/p2p/<id>), repeatable',
    category: 'node',
    default: [],
    minItems: 0,
  }),
  rpc: text({
    flag: 'rpc',
    arg: '<host:port>',
    help: 'JSON-RPC address; port 0 picks one',
    category: 'node',
    default: '127.0.0.1:7070',
    pattern: /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+):\d{1,5}$/,
    patternRule: 'must be host:port, e.g. 127.0.0.1:7070',
    maxBytes: 300,
  }),
  data: text({
    flag: 'data',
    arg: '<dir>',
    help: 'keep identity, records and inbox in this directory',
    category: 'node',
    default: undefined,
    defaultText: 'in memory only',
    maxBytes: 4096,
  }),
  rpcMaxBodyBytes: int({
    flag: 'rpc-max-body-bytes',
    arg: '<bytes>',
    help: 'largest JSON-RPC request body',
    category: 'node',
    default: 8 * MIB,
    min: 1024,
    max: 1024 * MIB,
  }),
  logLevel: choice({
    flag: 'log-level',
    arg: '<level>',
    help: 'what goes to the stderr log',
    category: 'node',
    default: 'warn',
    values: LOG_LEVELS,
  }),

  index: choice({
    flag: 'index',
    arg: '<mode>',
    help: 'profiles are stored under one key per attribute, or under n LSH keys',
    category: 'swarm',
    default: 'lsh',
    values: INDEX_MODES,
  }),
  lsh: {
    n: int({
      flag: 'lsh-n',
      arg: '<n>',
      help: 'LSH identifiers (keys) per profile',
      category: 'swarm',
      default: 20,
      min: 1,
      max: MAX_N,
      scenario: { statement: 'index', key: 'n' },
    }),
    m: int({
      flag: 'lsh-m',
      arg: '<m>',
      help: 'min-hash functions XORed into each identifier',
      category: 'swarm',
      default: 1,
      min: 1,
      max: MAX_M,
      scenario: { statement: 'index', key: 'm' },
    }),
    seed: text({
      flag: 'lsh-seed',
      arg: '<seed>',
      help: "the swarm's LSH seed: every hash function derives from it",
      category: 'swarm',
      default: 'cidx',
      maxBytes: MAX_SEED_BYTES,
      scenario: { statement: 'index', key: 'seed' },
    }),
    family: choice({
      flag: 'lsh-family',
      arg: '<family>',
      help: 'LSH family',
      category: 'swarm',
      default: DEFAULT_FAMILY,
      values: FAMILIES,
      scenario: { statement: 'index', key: 'family' },
    }),
    bits: choice({
      flag: 'lsh-bits',
      arg: '<bits>',
      help: 'bits per LSH identifier',
      category: 'swarm',
      default: DEFAULT_BITS,
      values: [8, 16, 32, 64],
      scenario: { statement: 'index', key: 'bits' },
    }),
  },
  k: int({
    flag: 'k',
    arg: '<k>',
    help: 'most results each queried node returns (and a search returns by default)',
    category: 'swarm',
    default: 5,
    min: 1,
    max: MAX_K,
    scenario: { statement: 'params', key: 'k' },
  }),
  l: int({
    flag: 'l',
    arg: '<l>',
    help: 'most similar communities notified on a create or an update',
    category: 'swarm',
    default: 3,
    min: 0,
    max: MAX_K,
    scenario: { statement: 'params', key: 'l' },
  }),
  s: int({
    flag: 's',
    arg: '<s>',
    help: 'most similar descriptors a storing node returns',
    category: 'swarm',
    default: 5,
    min: 0,
    max: MAX_K,
    scenario: { statement: 'params', key: 's' },
  }),
  replicas: int({
    flag: 'replicas',
    arg: '<r>',
    help: "peers holding each key's records",
    category: 'swarm',
    default: 3,
    min: 1,
    max: MAX_REPLICAS,
    scenario: { statement: 'params', key: 'replicas' },
  }),

  timing: {
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
  },

  limits: {
    maxFrameBytes: limit(
      'max-frame-bytes',
      'largest frame sent or accepted (bytes)',
      2 * MIB,
      4096,
      1024 * MIB,
    ),
    maxAttributes: limit('max-attributes', 'most attributes of a profile', 4096),
    maxRelations: limit('max-relations', 'most relations of a profile', 131_072),
    concurrency: {
      ...limit('concurrency', 'keys one operation handles at once', 8),
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
  },

  dht: {
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
  },
} as const;

/** Every setting's value: the resolved configuration of a node (and the config file's shape). */
export type NodeSettings = ConfigOf<typeof SETTINGS>;
export type Timing = NodeSettings['timing'];
export type Limits = NodeSettings['limits'];
export type DhtSettings = NodeSettings['dht'];

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
