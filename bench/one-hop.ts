/**
 * Over the connections a swarm holds: how often a searcher could reach a key's replicas without
 * opening one. A peer met for the first time costs three round trips before it answers, one on
 * an open connection costs one (docs/RESULTS.md, "A node's first search"), so this says what
 * a search that routes its key through peers it is already connected to — recursive routing:
 * the searcher hands the key to its connected peer closest to the key, which hands it on over
 * its own connections — could gain over one that looks the key up itself. bench:wan prints it
 * with `--one-hop N`, measured on the swarm as its searches left it.
 *
 * For N (searcher, key) pairs, keys uniform over the id space and searchers chosen at random
 * among the nodes that are not themselves the key's replicas (the `replicas` closest live
 * nodes): whether the searcher is connected to a replica (`direct`); whether its connected peer
 * closest to the key is connected to one (`viaClosest`: one hop, two round trips on open
 * connections); and that peer's rank among the key's closest (the median), i.e. how near to the
 * key one hop gets. `withinHops[h - 1]`: the share a greedy walk over open connections reaches in
 * h hops (h ≤ MAX_HOPS) — each node on the way hands the key to its connected peer closest to
 * it, until one holds a connection to a replica (1: the searcher does) — a walk that meets a
 * node with no connected peer closer to the key than itself ends there, unreached. Given the
 * network model's round trips, `walkMs` is the median and 90th percentile, over the walks that
 * reach a replica, of the round trips summed along the walk (to the replica nearest in time
 * among those the last node holds): what the forwarded query and its answer, back the same
 * way, would take on the wire.
 */
import { randomBytes } from 'node:crypto';
import type { PeerId } from '@libp2p/interface';
import { percentile } from '../sim/metrics.ts';
import { distanceFrom } from '../src/net/closest.ts';

/** How far the greedy walk is followed. */
export const MAX_HOPS = 4;

export interface OneHopNode {
  id: PeerId;
  /** The peers this node has a connection open to (peer id strings). */
  connected: ReadonlySet<string>;
}

export interface OneHop {
  pairs: number;
  /** Open connections per node, mean. */
  connections: number;
  /** Share of pairs whose searcher holds a connection to one of the key's replicas. */
  direct: number;
  /** Share whose searcher's connected peer closest to the key holds one (or is one). */
  viaClosest: number;
  /** Share reachable either way, over open connections only. */
  either: number;
  /** Median rank, among all nodes by distance to the key, of that connected peer (0: closest). */
  closestConnectedRank: number;
  /** Share reached by the greedy walk within 1, 2, … MAX_HOPS hops (cumulative). */
  withinHops: number[];
  /** The reached walks' summed round trips (ms), median and 90th percentile; with `rttMs`. */
  walkMs?: { p50: number; p90: number };
}

/** `random` returns a float in [0, 1) (the bench passes Math.random; tests a seeded one). */
export function oneHop(
  nodes: readonly OneHopNode[],
  replicas: number,
  pairs: number,
  random: () => number = Math.random,
  key: () => Uint8Array = () => randomBytes(32),
  rttMs?: (a: number, b: number) => number,
): OneHop {
  const index = new Map(nodes.map((n, i) => [n.id.toString(), i]));
  const connections = nodes.reduce((s, n) => s + n.connected.size, 0) / Math.max(1, nodes.length);
  let counted = 0;
  let direct = 0;
  let via = 0;
  let either = 0;
  const ranks: number[] = [];
  const reachedAt = new Array<number>(MAX_HOPS).fill(0);
  const walks: number[] = [];
  if (nodes.length <= replicas) {
    return {
      pairs: 0,
      connections,
      direct: 0,
      viaClosest: 0,
      either: 0,
      closestConnectedRank: 0,
      withinHops: reachedAt,
    };
  }
  /** The connected peer of `node` closest to the key (its index), or -1. */
  const closestOf = (node: OneHopNode, rank: number[]) => {
    let best = -1;
    for (const p of node.connected) {
      const i = index.get(p);
      if (i !== undefined && (best < 0 || (rank[i] as number) < (rank[best] as number))) best = i;
    }
    return best;
  };
  for (let tries = 0; counted < pairs && tries < pairs * 10; tries++) {
    const d = distanceFrom(key());
    const byDistance = nodes.map((n, i) => [d(n.id), i] as const).sort((a, b) => a[0] - b[0]);
    const rank = new Array<number>(nodes.length);
    byDistance.forEach(([, i], r) => {
      rank[i] = r;
    });
    const replicaIds = byDistance.slice(0, replicas).map(([, i]) => nodes[i]?.id.toString());
    const searcher = Math.floor(random() * nodes.length);
    if ((rank[searcher] as number) < replicas) continue;
    counted++;
    const own = nodes[searcher] as OneHopNode;
    const holdsReplica = (n: OneHopNode) =>
      replicaIds.some((r) => r !== undefined && n.connected.has(r));
    const isDirect = holdsReplica(own);
    const best = closestOf(own, rank);
    let at = searcher;
    let ms = 0;
    for (let h = 1; h <= MAX_HOPS; h++) {
      const node = nodes[at] as OneHopNode;
      if ((rank[at] as number) < replicas || holdsReplica(node)) {
        reachedAt[h - 1] = (reachedAt[h - 1] as number) + 1;
        if (rttMs !== undefined) {
          // The last hop, to the replica nearest in time the node holds (none: it is one).
          const last = replicaIds
            .map((r) => (r !== undefined && node.connected.has(r) ? index.get(r) : undefined))
            .filter((i): i is number => i !== undefined)
            .map((i) => rttMs(at, i));
          walks.push(ms + (last.length === 0 ? 0 : Math.min(...last)));
        }
        break;
      }
      const next = closestOf(node, rank);
      if (next < 0 || (rank[next] as number) >= (rank[at] as number)) break;
      if (rttMs !== undefined) ms += rttMs(at, next);
      at = next;
    }
    let isVia = false;
    if (best >= 0) {
      ranks.push(rank[best] as number);
      const hop = nodes[best] as OneHopNode;
      isVia = (rank[best] as number) < replicas || holdsReplica(hop);
    }
    if (isDirect) direct++;
    if (isVia) via++;
    if (isDirect || isVia) either++;
  }
  const share = (x: number) => (counted === 0 ? 0 : x / counted);
  return {
    pairs: counted,
    connections,
    direct: share(direct),
    viaClosest: share(via),
    either: share(either),
    closestConnectedRank: ranks.length === 0 ? 0 : percentile(ranks, 50),
    withinHops: reachedAt.map((_, h) =>
      share(reachedAt.slice(0, h + 1).reduce((a, b) => a + b, 0)),
    ),
    ...(rttMs === undefined || walks.length === 0
      ? {}
      : { walkMs: { p50: percentile(walks, 50), p90: percentile(walks, 90) } }),
  };
}
