import type { PrivateKey } from '@libp2p/interface';
import type { ResolvedSwarm } from '../index/swarm.ts';
import type { CidxLibp2p } from '../net/libp2p.ts';
import type { ParseOptions } from '../profile/parse.ts';
import type { Limits, SearchStats, Timing } from './config.ts';
import type { OwnedStore } from './ownership.ts';
import type { Router } from './router.ts';

/** What the node's algorithms share; built once by CidxNode. */
export interface NodeContext {
  libp2p: CidxLibp2p;
  router: Router;
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
