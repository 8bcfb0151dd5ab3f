/**
 * What a simulated swarm's nodes hold, for benches that look for what grows with the swarm:
 * connections per node, peer-store entries per node (every peer a node has heard of),
 * routing-table entries, and the garbage collector's time from perf_hooks 'gc' entries.
 */
import { getEventListeners } from 'node:events';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import type { InProcessSwarm as SimSwarm } from '../sim/swarm.ts';

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
  /**
   * libp2p's and kad-dht's queues and long-lived abort signals, read through internals
   * (largest over the nodes; undefined where the shape is not there): a queue that backs up,
   * or a signal that gathers listeners, costs more per operation as it grows.
   */
  internals: Record<string, number>;
}

/** Counts what the live nodes hold; peer stores are read on up to `sample` evenly spaced nodes. */
export async function census(swarm: SimSwarm, sample = 40): Promise<Census> {
  const live = swarm.alive();
  let connections = 0;
  let connectionsMax = 0;
  let routingTable = 0;
  const internals: Record<string, number> = {};
  for (const s of live) {
    for (const [k, v] of Object.entries(internalsOf(s.node.libp2p))) {
      internals[k] = Math.max(internals[k] ?? 0, v);
    }
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
    internals,
  };
}

/** What `sampleInternals` found, and the CPU its samples took before the last (not the nodes'). */
export interface InternalsSampling {
  most: Record<string, number>;
  ownCpuMs: number;
}

/**
 * The largest queue lengths and abort-listener counts any node shows while a command runs,
 * sampled every `everyMs` (after a command everything has drained). Each sample walks every
 * node, a cost that grows with the swarm: it times itself, so a bench can leave it out.
 */
export function sampleInternals(swarm: SimSwarm, everyMs = 2000): () => InternalsSampling {
  const most: Record<string, number> = {};
  let ownCpuMs = 0;
  const sample = () => {
    const t0 = process.threadCpuUsage();
    for (const s of swarm.alive())
      for (const [k, v] of Object.entries(internalsOf(s.node.libp2p)))
        most[k] = Math.max(most[k] ?? 0, v);
    const t = process.threadCpuUsage(t0);
    ownCpuMs += (t.user + t.system) / 1000;
  };
  const timer = setInterval(sample, everyMs);
  return () => {
    clearInterval(timer);
    // Read before the last sample, which runs after the command's CPU has been read.
    const spent = ownCpuMs;
    sample();
    return { most, ownCpuMs: spent };
  };
}

type Loose = Record<string, unknown> | undefined;
const at = (o: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((x, k) => (x as Loose)?.[k], o);

/** Queue lengths and abort-listener counts of one node, where its internals have that shape. */
function internalsOf(host: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  const size = (name: string, q: unknown) => {
    if (typeof (q as { size?: unknown })?.size === 'number')
      out[name] = (q as { size: number }).size;
  };
  const listeners = (name: string, signal: unknown) => {
    if (signal instanceof AbortSignal) out[name] = getEventListeners(signal, 'abort').length;
  };
  const cm = at(host, 'components', 'connectionManager');
  size('dialQueue', at(cm, 'dialQueue', 'queue'));
  listeners('dialQueue.shutdown', at(cm, 'dialQueue', 'shutDownController', 'signal'));
  for (const dht of ['profiles', 'addresses']) {
    const rt = at(host, 'services', dht, 'routingTable');
    size(`${dht}.routingTableUpdateQueue`, at(rt, 'routingTableUpdateQueue'));
    size(`${dht}.pingNewContactQueue`, at(rt, 'pingNewContactQueue'));
    size(`${dht}.pingOldContactQueue`, at(rt, 'pingOldContactQueue'));
    listeners(`${dht}.routingTable.shutdown`, at(rt, 'shutdownController', 'signal'));
    listeners(
      `${dht}.queryManager.shutdown`,
      at(host, 'services', dht, 'queryManager', 'shutDownController', 'signal'),
    );
  }
  return out;
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
