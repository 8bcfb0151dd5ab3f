import type { PrivateKey } from '@libp2p/interface';
import type { ResolvedSwarm } from '../index/swarm.ts';
import type { ParseOptions } from '../profile/parse.ts';
import {
  type Limits,
  resolveLimits,
  resolveTiming,
  type SearchStats,
  type Timing,
} from './config.ts';
import { Holders } from './holders.ts';
import type { Network } from './network.ts';
import { MemoryOwnedStore, type OwnedStore } from './ownership.ts';

/** What the requester algorithms share; built once per node (or per in-memory requester). */
export interface NodeContext {
  /** The holders of every key, reached through the network with the requester's policy. */
  holders: Holders;
  swarm: ResolvedSwarm;
  timing: Timing;
  limits: Limits;
  /** The owner key: the node's libp2p identity signs the communities it creates. */
  key: PrivateKey;
  owned: OwnedStore;
  profileLimits: ParseOptions;
  now(): number;
  /** Receives how each search's requests spread over peers (the simulator meters it). */
  onSearch?: (s: SearchStats) => void;
}

export interface ContextOptions {
  swarm: ResolvedSwarm;
  key: PrivateKey;
  timing?: Partial<Timing>;
  limits?: Partial<Limits>;
  owned?: OwnedStore;
  now?: () => number;
  onSearch?: (s: SearchStats) => void;
}

/** The context of a requester on `network`, with the defaults for what is not given. */
export function createContext(network: Network, o: ContextOptions): NodeContext {
  const timing = resolveTiming(o.timing);
  const limits = resolveLimits(o.limits);
  const now = o.now ?? Date.now;
  return {
    holders: new Holders(network, {
      closestCacheMs: timing.closestCacheMs,
      now,
      swarmParams: o.swarm.params,
      readsAhead: limits.readsAhead,
      aheadRadius: limits.aheadRadius,
    }),
    swarm: o.swarm,
    timing,
    limits,
    key: o.key,
    owned: o.owned ?? new MemoryOwnedStore(),
    profileLimits: { maxAttributes: limits.maxAttributes, maxRelations: limits.maxRelations },
    now,
    ...(o.onSearch ? { onSearch: o.onSearch } : {}),
  };
}
