/**
 * What the simulator's main thread and a shard (a worker thread hosting a slice of the swarm's
 * nodes) say to each other. Everything crosses by structured clone: profiles travel as their
 * JSON, errors as name and message. Node i runs in shard i mod the number of shards and listens
 * on `simNodeAddr(i)` (locate).
 */
import type { MessagePort } from 'node:worker_threads';
import type { StreamTraffic } from '../../src/net/wire-meter.ts';
import type { ProfileJSON } from '../../src/profile/profile.ts';
import type { NetworkStats } from '../network/member.ts';
import type { Region } from '../network/regions.ts';
import { simNodeIndex } from '../node-addr.ts';
import type { PeerInfo, SwarmConfig, SwarmCounters } from '../swarm-api.ts';

/** Given to a shard when its worker starts. */
export interface ShardInit {
  /** The run's settings, less its network (`network`: a class instance does not cross). */
  config: Omit<SwarmConfig, 'network'>;
  network: ShardNetwork;
  /** This shard's number, and how many there are: node i runs in shard i mod `shards`. */
  shard: number;
  shards: number;
  /** A port to each other shard, over which connections to its nodes are opened. */
  links: { shard: number; port: MessagePort }[];
}

export type ShardRequest =
  | { op: 'start'; index: number; bootstrap: string[] }
  | { op: 'create'; index: number; profile: ProfileJSON }
  | { op: 'search'; index: number; profile: ProfileJSON; k: number }
  | { op: 'update'; index: number; id: string; profile: ProfileJSON }
  | { op: 'dissolve'; index: number; id: string }
  | { op: 'republish'; index: number }
  | { op: 'info'; index: number }
  | { op: 'kill'; indices: number[] }
  | { op: 'leave'; indices: number[] }
  | { op: 'stop' }
  | { op: 'meter' }
  | { op: 'heap' };

/** What a shard's nodes have sent and counted since it started. */
export interface ShardMeter {
  traffic: Record<string, StreamTraffic>;
  counters: SwarmCounters;
  connections: { opened: number; closed: number };
  /** Its network model's statistics, and the round trip of every connection its nodes opened. */
  network: { stats: NetworkStats; rtts: readonly number[] };
  /** Connections its nodes opened to nodes of other shards. */
  crossConnections: number;
  /** libp2p's counter-group events (WireMeter.events). */
  events: Record<string, number>;
}

/** The answer to each request, by its `op`. */
export interface ShardAnswers {
  start: { addrs: string[] };
  create: { id: string };
  search: { id: string; similarity: number }[];
  update: null;
  dissolve: null;
  republish: null;
  info: PeerInfo;
  kill: null;
  leave: null;
  stop: null;
  meter: ShardMeter;
  heap: number;
}

/** A request on the wire: numbered, so answers may come back in any order. */
export type ShardMessage = ShardRequest & { id: number };

export type ShardReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { name: string; message: string } };

/**
 * The shard and network name (`n<i>`) of the node listening at `simNodeAddr(i)` (undefined for
 * another address).
 */
export function locate(addr: string, shards: number): { shard: number; name: string } | undefined {
  const i = simNodeIndex(addr);
  return i === undefined ? undefined : { shard: i % shards, name: `n${i}` };
}

/** The run's network model as it crosses to a thread (a region table as its data). */
export interface ShardNetwork {
  seed: number;
  latencyMs?: number;
  jitterMs?: number;
  accessMs?: number;
  bandwidthBps?: number;
  regions?: { regions: Region[]; rtt: Float64Array };
}
