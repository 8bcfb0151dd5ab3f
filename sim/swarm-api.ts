/**
 * What scenario commands need of a swarm and its nodes, and nothing more: the operations a user
 * has (create, search, update, dissolve, republish), what a node tells of itself (`info`), and
 * joining, crashing and stopping nodes. Implemented by in-process nodes (sim/swarm.ts), by
 * `cidx node` processes driven over JSON-RPC (sim/processes/swarm.ts, on 127.0.0.1 or in network
 * namespaces) and by nodes that run elsewhere (sim/endpoints/swarm.ts). How a run picks one, and
 * which statements each allows: sim/modes.ts.
 */
import type { SwarmParams } from '../src/index/swarm.ts';
import type { StreamTraffic } from '../src/net/wire-meter.ts';
import type { NodeOptions } from '../src/node/config.ts';
import type { Profile } from '../src/profile/profile.ts';
import type { NodeCountersJSON } from '../src/rpc/api.ts';
import type { NetworkStats } from './network/member.ts';
import type { RegionTable } from './network/regions.ts';
import type { Rng } from './random.ts';

/** One node of the swarm. */
export interface SimPeer {
  /** Position in join order: the node's name in selectors and reports. */
  readonly index: number;
  readonly alive: boolean;
  /** Stopped (SIGSTOP) but alive: holds its connections, answers nothing; no command asks it. */
  readonly frozen?: boolean;
  create(profile: Profile): Promise<{ id: string }>;
  search(profile: Profile, k: number): Promise<{ id: string; similarity: number }[]>;
  update(id: string, profile: Profile): Promise<void>;
  dissolve(id: string): Promise<void>;
  /** One republish round of everything this node owns. */
  republish(): Promise<void>;
  info(): Promise<PeerInfo>;
}

/** What a node holds: its share of the index and the communities it owns. */
export interface PeerInfo {
  /** Descriptor entries (one per key and community). */
  descriptors: number;
  keys: number;
  /** Bytes of the signed records held. */
  bytes: number;
  owned: number;
}

/** What the whole swarm measured since it started. */
export interface SwarmCounters {
  notifications: number;
  /** DHT lookups: how many, and their messages, hops and time in total. */
  lookups: { count: number; messages: number; hops: number; ms: number };
  /** Searches: as one node counts them (`stats`), summed over the nodes. */
  searches: NodeCountersJSON['searches'];
}

export interface SimSwarm {
  /** Every node ever joined, in join order. */
  readonly peers: readonly SimPeer[];
  alive(): SimPeer[];
  /** Starts `count` nodes, one every `everyMs`, each bootstrapping to a few live ones. */
  join(count: number, everyMs: number, onJoined?: () => void): Promise<SimPeer[]>;
  /** Crashes nodes: connections reset, no goodbye. */
  kill(peers: SimPeer[]): Promise<void>;
  /** Stops nodes gracefully. */
  leave(peers: SimPeer[]): Promise<void>;
  /** Stops every live node (the end of a run, also after a failure). */
  stop(): Promise<void>;
  /**
   * Wire traffic per protocol id, all nodes, since the start (a node that left or crashed
   * counts with what it had sent when last asked).
   */
  traffic(): Promise<Record<string, StreamTraffic>>;
  counters(): Promise<SwarmCounters>;
  /** Where nodes are processes of their own: each live one's memory, each start's time. */
  processes?(): Promise<ProcessFigures>;
  /** Live nodes over time (ms since the swarm started). */
  aliveSeries(): { t: number; alive: number }[];
  /**
   * Network faults, where the swarm can make them (a swarm it only drives over JSON-RPC cannot:
   * the statements are then refused before the run starts). `partition`: the given live nodes
   * and all others cannot reach each other until `heal`, which ends every partition; nodes that
   * join meanwhile join the larger side. `freeze`: the nodes' processes stop (SIGSTOP) holding
   * their connections, answering nothing, until `thaw`.
   */
  partition?(side: SimPeer[]): Promise<void>;
  heal?(): Promise<void>;
  freeze?(peers: SimPeer[]): Promise<void>;
  thaw?(peers: SimPeer[]): Promise<void>;
  /** The network model the nodes' connections cross, where the swarm has one. */
  readonly network?: SwarmNetwork;
}

/** What a `network` statement describes: the delays, bandwidth and regions of the model. */
export interface NetworkSpec {
  /** One-way delay between any two nodes (ms), and the ± jitter drawn once per link. */
  latencyMs?: number;
  jitterMs?: number;
  /** Nodes spread over regions; the delay between two is half their regions' round trip. */
  regions?: { name: string; table: RegionTable };
  /** Last-mile one-way delay at each end of a link (ms). */
  accessMs?: number;
  /** Every node's uplink (bits per second). */
  bandwidthBps?: number;
}

/** The network model of a swarm, as the report reads it. */
export interface SwarmNetwork {
  readonly spec: NetworkSpec;
  stats(): NetworkStats;
  /** The region a node is in (undefined without regions). */
  regionOf(peer: SimPeer): string | undefined;
  /** The model's round trip between two nodes (ms); in-process swarms only. */
  rttMs?(a: SimPeer, b: SimPeer): number;
}

export interface ProcessFigures {
  /** Resident set size of each live node process (MiB). */
  rssMb: number[];
  /** Of it, anonymous memory (MiB): the rest are file pages every node process shares. */
  anonMb: number[];
  /** Time from spawn to the ready line of every node started (ms). */
  startMs: number[];
}

/** What every node of a swarm is started with. */
export interface SwarmConfig {
  node: Pick<NodeOptions, 'timing' | 'limits' | 'dht' | 'peerRecords'> & {
    swarm: Partial<SwarmParams>;
  };
  /** The same settings shaped like a `cidx node --config` file (what a process is given). */
  settings: Record<string, unknown>;
  /** Peers each joining node bootstraps to (default 3). */
  bootstrapPeers?: number;
  /**
   * The network the nodes run on (`network` statement) and the seed its regions and jitter are
   * drawn from; a swarm that cannot model one refuses it.
   */
  network?: NetworkSpec & { seed: number };
}

/** Builds the swarm a run drives; `rng` picks bootstrap peers. */
export type SwarmFactory = (config: SwarmConfig, rng: Rng) => SimSwarm;
