/**
 * The settings of a simulated network and its members: what a node is to the model (region,
 * access delay, uplink, partition side), and what the model reports.
 */
import type { RegionTable } from './regions.ts';

export interface NetworkConfig {
  /** Seeds the regions nodes get and the jitter of each link. */
  seed: number;
  /** One-way delay between any two nodes (ms; default 0). Not with `regions`. */
  latencyMs?: number;
  /** Each link's delay is moved by a fixed amount drawn uniformly in ± this (ms; default 0). */
  jitterMs?: number;
  /** Every node's uplink, bits per second (default: unlimited). */
  bandwidthBps?: number;
  /** Regions: nodes get one by weight; the base delay is half their round-trip time. */
  regions?: RegionTable;
  /** Last-mile one-way delay of every node, added at both ends of a link (ms; default 0). */
  accessMs?: number;
  /** Monotonic clock in ms (default performance.now). */
  now?: () => number;
}

/** A network setting out of range. */
export class NetworkConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NetworkConfigError';
  }
}

/** A node of the network, from its join to the end of the run. */
export class Member {
  readonly name: string;
  /** Index into the region table, or -1 without regions. */
  readonly region: number;
  readonly accessMs: number;
  readonly uplinkBps: number;
  /** When the uplink has sent everything queued so far. */
  uplinkFreeAt = 0;
  /** Partition side: members on different sides cannot reach each other. */
  side = 0;
  /** False once its listener closed (the node stopped). */
  alive = true;
  /** Frozen: what it sends and what is sent to it is held until it thaws (a stopped process). */
  frozen = false;

  constructor(name: string, region: number, accessMs: number, uplinkBps: number) {
    this.name = name;
    this.region = region;
    this.accessMs = accessMs;
    this.uplinkBps = uplinkBps;
  }
}

export interface MemberOptions {
  /** Region id (default: drawn by weight from the seed and the name). */
  region?: string;
  /** This node's last-mile delay (default: the network's `accessMs`). */
  accessMs?: number;
  /** This node's uplink (default: the network's `bandwidthBps`). */
  bandwidthBps?: number;
}

export interface NetworkStats {
  members: number;
  /** Connections opened (each pair once). */
  connections: number;
  /** Round-trip times of the links connections were opened on (ms; NaN with none). */
  rttP50Ms: number;
  rttP95Ms: number;
  bytes: number;
  chunks: number;
  /** Chunks and bytes that were in flight across a partition when it began. */
  droppedChunks: number;
  droppedBytes: number;
  /** Connections a partition closed, and dials whose first packet met a partition. */
  closedByPartition: number;
  dialsDropped: number;
  /** Deliveries waiting in the timer queue. */
  inFlight: number;
  /** Deliveries held at frozen nodes. */
  held: number;
}

export function nonNegative(name: string, v: number | undefined): number {
  if (v === undefined) return 0;
  if (!Number.isFinite(v) || v < 0) {
    throw new NetworkConfigError(`${name} must be a number of ms, 0 or more, not ${v}`);
  }
  return v;
}
