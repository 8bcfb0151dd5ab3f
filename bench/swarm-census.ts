/**
 * What a simulated swarm's nodes hold, for benches that look for what grows with the swarm:
 * connections per node, peer-store entries per node (every peer a node has heard of),
 * routing-table entries, and the garbage collector's time from perf_hooks 'gc' entries.
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import type { SimSwarm } from '../sim/swarm.ts';

export interface Census {
  nodes: number;
  /** Open connections per node: mean and largest. */
  connections: number;
  connectionsMax: number;
  /** Peer-store entries per node (mean over a sample) and the sample's largest. */
  peerStore: number;
  peerStoreMax: number;
  /** Routing-table entries per node, both DHTs together (mean over all nodes). */
  routingTable: number;
}

/** Counts what the live nodes hold; peer stores are read on up to `sample` evenly spaced nodes. */
export async function census(swarm: SimSwarm, sample = 40): Promise<Census> {
  const live = swarm.alive();
  let connections = 0;
  let connectionsMax = 0;
  let routingTable = 0;
  for (const s of live) {
    const c = s.node.libp2p.getConnections().length;
    connections += c;
    connectionsMax = Math.max(connectionsMax, c);
    const { profiles, addresses } = s.node.libp2p.services;
    routingTable += tableSize(profiles) + tableSize(addresses);
  }
  const step = Math.max(1, Math.floor(live.length / sample));
  let peers = 0;
  let peersMax = 0;
  let read = 0;
  for (let i = 0; i < live.length; i += step) {
    const n = (await live[i]?.node.libp2p.peerStore.all())?.length ?? 0;
    peers += n;
    peersMax = Math.max(peersMax, n);
    read++;
  }
  const mean = (x: number, of: number) => (of === 0 ? 0 : x / of);
  return {
    nodes: live.length,
    connections: mean(connections, live.length),
    connectionsMax,
    peerStore: mean(peers, read),
    peerStoreMax: peersMax,
    routingTable: mean(routingTable, live.length),
  };
}

function tableSize(dht: unknown): number {
  return (dht as { routingTable?: { size?: number } }).routingTable?.size ?? 0;
}

export interface GcTotals {
  ms: number;
  minor: number;
  major: number;
  /** Time in scavenges (minor) and in mark-compact (major), ms. */
  minorMs: number;
  majorMs: number;
}

/** Sums the collector's pauses as perf_hooks reports them, from the moment it is created. */
export class GcClock {
  readonly #totals: GcTotals = { ms: 0, minor: 0, major: 0, minorMs: 0, majorMs: 0 };
  readonly #observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind;
      this.#totals.ms += e.duration;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
        this.#totals.minor++;
        this.#totals.minorMs += e.duration;
      } else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        this.#totals.major++;
        this.#totals.majorMs += e.duration;
      }
    }
  });

  constructor() {
    this.#observer.observe({ entryTypes: ['gc'] });
  }

  totals(): GcTotals {
    return { ...this.#totals };
  }

  stop(): void {
    this.#observer.disconnect();
  }
}

export function gcDelta(after: GcTotals, before: GcTotals): GcTotals {
  return {
    ms: after.ms - before.ms,
    minor: after.minor - before.minor,
    major: after.major - before.major,
    minorMs: after.minorMs - before.minorMs,
    majorMs: after.majorMs - before.majorMs,
  };
}
