/**
 * Settings of reachability (who serves the DHTs), circuit relays and private swarms. The relay
 * group is read by src/net/relay.ts; the rest by the host (src/net/libp2p.ts).
 */
import { bool, choice, duration, int, text } from './kinds.ts';

export const REACHABILITY_MODES = ['auto', 'public', 'private'] as const;
const MIB = 1024 * 1024;

export const REACH = {
  reachability: choice({
    flag: 'reachability',
    arg: '<mode>',
    help:
      'auto: serve the DHTs once peers confirm this node can be dialled (at once in a swarm on ' +
      'private-range addresses); public: serve, and relay for others; private: only query, ' +
      'reached through relays',
    category: 'reach',
    default: 'auto',
    values: REACHABILITY_MODES,
    scenario: { statement: 'params', key: 'reachability' },
  }),
  swarmKey: text({
    flag: 'swarm-key',
    arg: '<file>',
    help: 'pre-shared key file of a private swarm (cidx swarm-key): peers without it cannot connect',
    category: 'reach',
    default: undefined,
    defaultText: 'none: an open swarm',
    maxBytes: 4096,
  }),
  privateSwarm: bool({
    flag: 'private-swarm',
    arg: '',
    help:
      'with auto: treat the swarm as numbered in private ranges and serve at once (--no-private-swarm ' +
      'waits for AutoNAT anyway, e.g. behind a NAT on a private-range test bed)',
    category: 'reach',
    default: undefined,
    defaultText: 'when every bootstrap address is private-range',
  }),
  // @libp2p/identify sends the record always; go-libp2p can leave it out (src/net/unsigned-identify.ts).
  // On by default: without records a joining node's self-lookup asks more peers, so a swarm's
  // join costs more CPU; why is not yet found (docs/BENCHMARKS.md, "Where a search's bytes go,
  // by message type").
  peerRecords: bool({
    flag: 'peer-records',
    arg: '',
    help:
      "send this node's signed peer record in every identify message; --no-peer-records leaves it " +
      'out (about 190 bytes less each way on every new connection, and no signature check at the ' +
      'other end: peers take the addresses identify lists, on a connection already authenticated ' +
      'to this node)',
    category: 'reach',
    default: true,
    scenario: { statement: 'params', key: 'peerRecords' },
  }),
  relay: {
    reservations: int({
      flag: 'relay-reservations',
      arg: '<n>',
      help: 'relay reservations a node that cannot be dialled holds (0: none)',
      category: 'reach',
      default: 2,
      min: 0,
      max: 8,
    }),
    maxReservations: int({
      flag: 'relay-max-reservations',
      arg: '<n>',
      help: "reservations a public node's relay grants at once (0: it offers no relay)",
      category: 'reach',
      // libp2p's default is 15; a cidx relay mostly carries notifications, small and rare.
      default: 32,
      min: 0,
      max: 10_000,
    }),
    reservationTtlMs: duration({
      flag: 'relay-reservation-ttl',
      arg: '<duration>',
      help: 'how long a reservation lasts before the reserving node must refresh it',
      category: 'reach',
      default: 3_600_000,
      min: 60_000,
      max: 86_400_000,
    }),
    durationLimitMs: duration({
      flag: 'relay-duration-limit',
      arg: '<duration>',
      help: 'longest life of one relayed connection',
      category: 'reach',
      // go-libp2p's and js-libp2p's default for limited relayed connections.
      default: 120_000,
      min: 1_000,
      max: 3_600_000,
    }),
    dataLimitBytes: int({
      flag: 'relay-data-limit',
      arg: '<bytes>',
      help: 'most bytes one relayed connection carries, both ways together',
      category: 'reach',
      // Two of the largest cidx frames: libp2p's 128 KiB would cut a notification carrying a
      // large profile.
      default: 4 * MIB,
      min: 64 * 1024,
      max: 1024 * MIB,
    }),
  },
} as const;
