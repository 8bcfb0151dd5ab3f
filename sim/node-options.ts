/**
 * What every simulated node is started with, wherever it runs (the in-process swarm, a shard's
 * worker thread): the run's settings, simulation mode, and hooks that add each lookup, search
 * and notification to the swarm's counters. The transport and addresses are the caller's.
 */
import type { LookupStats } from '../src/net/closest.ts';
import type { WireMeter } from '../src/net/wire-meter.ts';
import type { NodeOptions } from '../src/node/config.ts';
import { noSearches } from '../src/rpc/node-counters.ts';
import type { SwarmConfig, SwarmCounters } from './swarm-api.ts';

export function emptyCounters(): SwarmCounters {
  return {
    notifications: 0,
    lookups: { count: 0, messages: 0, hops: 0, ms: 0 },
    searches: noSearches(),
  };
}

/** Adds what one node or thread counted to `out` (absent groups count nothing). */
export function addCounters(
  out: SwarmCounters,
  c: {
    notifications: number;
    lookups?: SwarmCounters['lookups'];
    searches?: SwarmCounters['searches'];
  },
): void {
  out.notifications += c.notifications;
  if (c.lookups)
    for (const k of ['count', 'messages', 'hops', 'ms'] as const) out.lookups[k] += c.lookups[k];
  if (c.searches)
    for (const k of [
      'count',
      'requests',
      'peers',
      'repeatQueries',
      'keysDropped',
      'keysRouted',
    ] as const)
      out.searches[k] += c.searches[k];
}

export function simNodeOptions(
  config: SwarmConfig,
  meter: WireMeter,
  c: SwarmCounters,
): Pick<
  NodeOptions,
  | 'swarm'
  | 'timing'
  | 'limits'
  | 'simulation'
  | 'dht'
  | 'peerRecords'
  | 'metrics'
  | 'onLookup'
  | 'onSearch'
> {
  return {
    swarm: config.node.swarm,
    timing: config.node.timing ?? {},
    // 1 MiB duplicate filters on thousands of nodes would be most of the memory of a run.
    limits: { inboxCapacity: 1000, inboxFilterCells: 1 << 14, ...config.node.limits },
    simulation: true,
    dht: config.node.dht,
    peerRecords: config.node.peerRecords,
    metrics: meter.component,
    onLookup: (_dht, s: LookupStats) => {
      c.lookups.count++;
      c.lookups.messages += s.messages;
      c.lookups.hops += s.hops;
      c.lookups.ms += s.ms;
    },
    onSearch: (s) => {
      c.searches.count++;
      c.searches.requests += s.requests;
      c.searches.peers += s.peers;
      c.searches.repeatQueries += s.repeatQueries;
      c.searches.keysDropped += s.keysDropped;
      c.searches.keysRouted += s.keysRouted;
    },
  };
}
