/**
 * A node's options. Timing, limits and Kademlia settings, their defaults and ranges come from
 * the settings table (src/settings/table.ts); this file only reads it.
 */
import type { SwarmParams } from '../index/swarm.ts';
import { ParamsError } from '../keys/params.ts';
import type { LookupStats } from '../net/closest.ts';
import type { HostOptions } from '../net/libp2p.ts';
import type { ServedObserver } from '../net/server.ts';
import { type Limits, SETTINGS, TIMING_RULES, type Timing } from '../settings/table.ts';
import { defaultsOf, type PartialConfigOf, resolveGroup } from '../settings/tree.ts';
import { definedOnly } from '../util/defined.ts';
import type { Scheduler } from './scheduler.ts';

export type { Limits, Timing };

export const DEFAULT_TIMING: Timing = defaultsOf(SETTINGS.timing);
export const DEFAULT_LIMITS: Limits = defaultsOf(SETTINGS.limits);

/** A node: its host (transport, listen addresses, identity, …) and what the swarm shares. */
export interface NodeOptions extends Omit<HostOptions, 'maxConnections'> {
  /** Parameters shared by the whole swarm. */
  swarm?: Partial<SwarmParams>;
  /** Multiaddrs (with /p2p/…) of peers already in the swarm. */
  bootstrap?: string[];
  timing?: Partial<Timing>;
  limits?: Partial<Limits>;
  /** The clock, in ms (tests move it): record lifetimes, rate windows, tombstone ends. */
  now?: () => number;
  /** Runs the periodic work (republish, expiry); tests pass one driven by their `now`. */
  scheduler?: Scheduler;
  /** Receives the cost of every DHT lookup this node makes. */
  onLookup?: (dht: 'profiles' | 'addresses', s: LookupStats) => void;
  /** Receives, after each search, how its requests spread over peers. */
  onSearch?: (s: SearchStats) => void;
  /** Receives the type and outcome of every request this node serves to other peers. */
  onServed?: ServedObserver;
}

/** How one search's cidx requests spread over the peers asked. */
export interface SearchStats {
  keys: number;
  /** Requests sent to other nodes (queries, probes, follow-ups). */
  requests: number;
  /** Distinct other nodes asked. */
  peers: number;
  /** Queries (the profile along, routed or not) sent to a node this search had already asked under another key. */
  repeatQueries: number;
  /** Keys still being asked when the search ended on its quorum (`limits.searchQuorum`). */
  keysDropped: number;
  /** Keys answered by a read routed over open connections, without a lookup (`limits.routeHops`). */
  keysRouted: number;
}

/** Fills in defaults and checks values; throws ParamsError naming the field. */
export function resolveTiming(t: Partial<Timing> = {}): Timing {
  const out = resolveGroup(SETTINGS.timing, t, (name, problem) => {
    throw new ParamsError(`timing.${name}`, problem);
  });
  for (const rule of TIMING_RULES)
    if (!rule.holds(out)) throw new ParamsError(`timing.${rule.field}`, rule.problem);
  return out;
}

/** Fills in defaults and checks values; throws ParamsError naming the field. */
export function resolveLimits(l: Partial<Limits> = {}): Limits {
  return resolveGroup(SETTINGS.limits, l, (name, problem) => {
    throw new ParamsError(`limits.${name}`, problem);
  });
}

/**
 * The node options that settings (all or some, shaped like the config file) give: the swarm's
 * parameters, timing, limits, the DHTs' settings and the reachability mode. Other host options (transport, listen, …) are the
 * caller's.
 */
export function nodeOptionsFrom(
  c: PartialConfigOf<typeof SETTINGS>,
): Pick<NodeOptions, 'swarm' | 'timing' | 'limits' | 'dht' | 'reachability' | 'peerRecords'> {
  const swarm: Partial<SwarmParams> = {};
  if (c.index === 'attribute') swarm.index = { mode: 'attribute' };
  else if (c.index === 'lsh' || c.lsh !== undefined) {
    const lsh = { ...defaultsOf(SETTINGS.lsh), ...definedOnly(c.lsh ?? {}) };
    swarm.index = { mode: 'lsh', ...lsh };
  }
  for (const f of ['k', 'l', 's', 'replicas'] as const) if (c[f] !== undefined) swarm[f] = c[f];
  return {
    swarm,
    timing: definedOnly(c.timing ?? {}),
    limits: definedOnly(c.limits ?? {}),
    dht: definedOnly(c.dht ?? {}),
    reachability: c.reachability,
    peerRecords: c.peerRecords,
  };
}
