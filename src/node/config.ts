import type { SwarmParams } from '../index/swarm.ts';
import { ParamsError } from '../keys/params.ts';
import type { LookupStats } from '../net/closest.ts';
import type { HostOptions } from '../net/libp2p.ts';
import type { ServedObserver } from '../net/server.ts';

export interface Timing {
  /** Bound on one request/response exchange, dial included (ms). */
  requestTimeoutMs: number;
  /** Bound on one DHT lookup of the closest peers (ms). */
  lookupTimeoutMs: number;
  /** How often owners store their records again (ms). */
  republishIntervalMs: number;
  /** How long a stored record lives without a republish (ms). */
  recordTtlMs: number;
  /** How long a tombstone lives; at least recordTtlMs, so it outlives every stale copy (ms). */
  tombstoneTtlMs: number;
  /** How often expired records are swept (ms). */
  expireIntervalMs: number;
  /** How often to retry the bootstrap peers while no peer is known (ms). */
  bootstrapRetryMs: number;
  /** How long a key's closest peers are reused before a new lookup (ms; 0: never reused). */
  closestCacheMs: number;
  /**
   * How long the node's dialable addresses must stay unchanged before communities whose
   * contacts follow them are republished with the new ones (ms; contacts-refresh.ts).
   */
  contactsSettleMs: number;
}

export interface Limits {
  /** Largest frame sent or accepted (bytes). */
  maxFrameBytes: number;
  maxAttributes: number;
  maxRelations: number;
  /** Keys handled at once by one operation. */
  concurrency: number;
  /** Replicas asked per key on a search (the closest that answer). */
  queryReplicas: number;
  inboxCapacity: number;
  /** Cells (bytes) of the inbox's duplicate filter (default 2^20). */
  inboxFilterCells: number;
  maxInboundStreams: number;
  /** Descriptors one owner key may keep on this node under one DHT key. */
  quotaPerOwnerPerKey: number;
  /** Descriptors one owner key may keep on this node in all. */
  quotaPerOwner: number;
  /** Requests of the cidx protocol one peer may make per second; beyond, it is told `busy`. */
  peerRequestsPerSecond: number;
}

export const DEFAULT_TIMING: Timing = {
  requestTimeoutMs: 10_000,
  lookupTimeoutMs: 20_000,
  republishIntervalMs: 30 * 60_000,
  recordTtlMs: 2 * 3_600_000,
  tombstoneTtlMs: 4 * 3_600_000,
  expireIntervalMs: 60_000,
  bootstrapRetryMs: 10_000,
  // Off: on the corpus workload (100 nodes, 40 searches) a 30 s cache saved 3.6% of the lookups
  // and no measurable bytes, while a stale entry can skip a closer peer that joined since.
  closestCacheMs: 0,
  // A node reserves its relay slots one after the other within about a second: one new
  // version for both, not one per reservation.
  contactsSettleMs: 2_000,
};

export const DEFAULT_LIMITS: Limits = {
  maxFrameBytes: 2 * 1024 * 1024,
  maxAttributes: 4096,
  maxRelations: 131_072,
  concurrency: 8,
  queryReplicas: 1,
  inboxCapacity: 10_000,
  inboxFilterCells: 1 << 20,
  maxInboundStreams: 256,
  quotaPerOwnerPerKey: 64,
  quotaPerOwner: 20_000,
  // A republish round of many communities sends bursts of stores to the same few peers in a
  // small swarm; 1000/s leaves those alone and still caps a flooding peer.
  peerRequestsPerSecond: 1000,
};

/** A node: its host (transport, listen addresses, identity, …) and what the swarm shares. */
export interface NodeOptions extends HostOptions {
  /** Parameters shared by the whole swarm. */
  swarm?: Partial<SwarmParams>;
  /** Multiaddrs (with /p2p/…) of peers already in the swarm. */
  bootstrap?: string[];
  timing?: Partial<Timing>;
  limits?: Partial<Limits>;
  /** The clock, in ms (tests move it). */
  now?: () => number;
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
  /** Queries (the profile along) sent to a node this search had already asked under another key. */
  repeatQueries: number;
}

/** Fills in defaults and checks values; throws ParamsError naming the field. */
export function resolveTiming(t: Partial<Timing> = {}): Timing {
  const out = { ...DEFAULT_TIMING, ...t };
  for (const [k, v] of Object.entries(out)) {
    // closestCacheMs may be 0 (no cache); every other duration must be positive.
    if (!Number.isFinite(v) || v < 0 || (v === 0 && k !== 'closestCacheMs')) {
      throw new ParamsError(`timing.${k}`, 'must be a positive number of ms');
    }
  }
  if (out.tombstoneTtlMs < out.recordTtlMs) {
    throw new ParamsError('timing.tombstoneTtlMs', 'must be at least recordTtlMs');
  }
  if (out.recordTtlMs <= out.republishIntervalMs) {
    throw new ParamsError(
      'timing.recordTtlMs',
      'must exceed republishIntervalMs, or records expire between republishes',
    );
  }
  return out;
}

/** Limits that may be 0 or have an upper bound; every other limit is an integer >= 1. */
const LIMIT_RANGES: Partial<Record<keyof Limits, [number, number]>> = {};

export function resolveLimits(l: Partial<Limits> = {}): Limits {
  const out = { ...DEFAULT_LIMITS, ...l };
  for (const [k, v] of Object.entries(out)) {
    const [min, max] = LIMIT_RANGES[k as keyof Limits] ?? [1, Number.POSITIVE_INFINITY];
    if (Number.isInteger(v) && v >= min && v <= max) continue;
    const rule =
      max === Number.POSITIVE_INFINITY
        ? `must be an integer >= ${min}`
        : min === 0 && max === 1
          ? 'must be 0 or 1'
          : `must be an integer from ${min} to ${max}`;
    throw new ParamsError(`limits.${k}`, rule);
  }
  if (out.maxFrameBytes < 4096)
    throw new ParamsError('limits.maxFrameBytes', 'must be at least 4096');
  return out;
}
