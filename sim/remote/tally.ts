/**
 * A swarm's traffic and counters from its nodes' `stats`: summed over every node that ever
 * answered, each with its latest figures (a crashed or departed node with those it gave last).
 * Every node meters what it sends, so the sum counts each byte once, as the in-process meter does.
 */
import pLimit from 'p-limit';
import type { StatsResult } from '../../src/client/index.ts';
import type { StreamTraffic } from '../../src/net/wire-meter.ts';
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
  const out: Record<string, StreamTraffic> = {};
  for (const s of stats)
    for (const [proto, t] of Object.entries(s.wire ?? {})) {
      const o = out[proto] ?? { streams: 0, messages: 0, bytes: 0 };
      o.streams += t.streams;
      o.messages += t.messages;
      o.bytes += t.bytes;
      out[proto] = o;
    }
  return out;
}

export function sumCounters(stats: readonly StatsResult[]): SwarmCounters {
  const c: SwarmCounters = {
    notifications: 0,
    lookups: { count: 0, messages: 0, hops: 0, ms: 0 },
    searches: { count: 0, requests: 0, peers: 0, repeatQueries: 0 },
  };
  for (const s of stats) {
    c.notifications += s.notifications?.received ?? 0;
    if (s.lookups) {
      c.lookups.count += s.lookups.count;
      c.lookups.messages += s.lookups.messages;
      c.lookups.hops += s.lookups.hops;
      c.lookups.ms += s.lookups.ms;
    }
    if (s.searches) {
      c.searches.count += s.searches.count;
      c.searches.requests += s.searches.requests;
      c.searches.peers += s.searches.peers;
      c.searches.repeatQueries += s.searches.repeatQueries;
    }
  }
  return c;
}
