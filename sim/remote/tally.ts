/**
 * A swarm's traffic and counters from its nodes' `stats`: summed over every node that ever
 * answered, each with its latest figures (a crashed or departed node with those it gave last).
 * Every node meters what it sends, so the sum counts each byte once, as the in-process meter does.
 */
import pLimit from 'p-limit';
import type { StatsResult } from '../../src/client/index.ts';
import type { StreamTraffic } from '../../src/net/wire-meter.ts';
import { sumTraffic as sumRecords } from '../metrics.ts';
import { addCounters, emptyCounters } from '../node-options.ts';
import type { SwarmCounters } from '../swarm-api.ts';
import type { RpcPeer } from './peer.ts';

/** `stats` calls in flight at once. */
const CONCURRENCY = 16;

/** Latest stats of every peer (live ones asked now). */
export async function gather(peers: readonly RpcPeer[]): Promise<StatsResult[]> {
  const limit = pLimit(CONCURRENCY);
  const all = await Promise.all(peers.map((p) => limit(() => p.stats())));
  return all.filter((s): s is StatsResult => s !== undefined);
}

export function sumTraffic(stats: readonly StatsResult[]): Record<string, StreamTraffic> {
  return sumRecords(stats.map((s) => s.wire ?? {}));
}

export function sumCounters(stats: readonly StatsResult[]): SwarmCounters {
  const c = emptyCounters();
  for (const s of stats)
    addCounters(c, {
      notifications: s.notifications?.received ?? 0,
      lookups: s.lookups,
      searches: s.searches,
    });
  return c;
}
