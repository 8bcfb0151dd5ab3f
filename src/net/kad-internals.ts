/**
 * The places cidx looks inside @libp2p/kad-dht (16.x), each checked, with a fallback:
 *
 * - the routing table's size, read through kad-dht's exported `SingleKadDHT` type (the service
 *   object has it, `KadDHT` does not declare it), and its peers, from the k-bucket tree
 *   (`routingTable.kb`, not in the published types): how a node knows it has joined, and what
 *   `info()` and `peers()` report. Without them a node counts the connected peers that speak
 *   the DHT's protocol instead (`RoutingTables` in src/node).
 * - the closest-peer tagger's interval, which kad-dht's options do not expose: simulations
 *   slow it down (one node pays nothing for it; a thousand in one process pay a visible share
 *   of their CPU, docs/BENCHMARKS.md). Without it the tagger runs at kad-dht's default, which
 *   costs CPU, not correctness.
 * - the routing table's `queueRoutingTableUpdate` and `pingContact`, through which a node
 *   answers kad-dht's pings of peers that have just answered from memory (fresh-contacts.ts).
 *   Without them every such peer is pinged, as kad-dht does alone: messages, not correctness.
 * - the closest-peer tagger's round, `updatePeerTags`, replaced by one that costs nothing while
 *   the closest peers stay the same (closest-tagging.ts). Without it kad-dht's own round runs:
 *   CPU, not correctness.
 * - the routing-table refresh's interval, which kad-dht's options do not expose either: every
 *   5 minutes each DHT of each node looks up a random id for every bucket depth it has (about
 *   log2 N lookups, most of them to peers it is not connected to). Simulations make it as rare
 *   as their self-queries: the refreshes of thousands of nodes in one process, each from the
 *   5th minute of its life on, fell in the searches of every run that lasts that long
 *   (docs/BENCHMARKS.md). Without it the refresh runs at kad-dht's default: CPU, not
 *   correctness.
 * - the age after which a full bucket's contacts are pinged again (`lastPingThreshold` of the
 *   k-bucket tree, not among kad-dht's options): when a full bucket is offered a new peer,
 *   kad-dht pings its contacts last pinged more than 10 minutes ago, and a contact's last ping
 *   is the one that let it in, however often it has answered since. Simulations make it as
 *   long as their self-queries: a run of thousands of nodes lasts past the 10th minute of its
 *   first nodes' lives, and from then on their lookups' named peers set off pings, most of them
 *   over new connections, which a shorter run of fewer nodes never sends (docs/BENCHMARKS.md).
 *   Without it the pings go out at kad-dht's default age: messages, not correctness.
 *
 * `kadInternalsMissing` names what is gone, for a node to warn about at start; a test asserts
 * that all are there on a real kad-dht instance, so an upgrade that renames them fails it.
 */
import type { KadDHT, SingleKadDHT } from '@libp2p/kad-dht';
import { closestPeerTagger, closestTaggingReachable } from './closest-tagging.ts';
import { freshPingsReachable } from './fresh-contacts.ts';
import { ownPathReachable } from './own-path-buckets.ts';

/** The tagger interval simulations use instead of kad-dht's 5 s. */
export const SIMULATION_TAGGING_MS = 120_000;

/**
 * The interval of kad-dht's background lookups (self-queries, table refreshes) in simulations,
 * and the age after which they ping a full bucket's old contacts again.
 */
export const SIMULATION_QUERY_INTERVAL_MS = 3_600_000;

/** The number of peers in the DHT's routing table; undefined if kad-dht no longer exposes it. */
export function routingTableSize(dht: KadDHT): number | undefined {
  const size = (dht as Partial<SingleKadDHT>).routingTable?.size;
  return typeof size === 'number' ? size : undefined;
}

/** The peer ids in the DHT's routing table; undefined if kad-dht no longer exposes them. */
export function routingTablePeers(dht: KadDHT): string[] | undefined {
  const kb = (
    dht as unknown as {
      routingTable?: { kb?: { toIterable?: () => Iterable<{ peerId: { toString(): string } }> } };
    }
  ).routingTable?.kb;
  if (typeof kb?.toIterable !== 'function') return undefined;
  return [...kb.toIterable()].map((p) => p.peerId.toString());
}

/**
 * Slows the closest-peer tagging of a DHT not started yet (the tagger reads its interval at
 * start); false if the tagger is not where kad-dht 16 keeps it, in which case nothing changes.
 */
export function slowClosestPeerTagging(dht: KadDHT): boolean {
  return setNumber(closestPeerTagger(dht), 'refreshInterval', SIMULATION_TAGGING_MS);
}

/** Sets a numeric setting kad-dht keeps on one of its parts; false if the part or setting is gone. */
function setNumber<K extends string>(
  part: { [k in K]?: unknown } | undefined,
  key: K,
  ms: number,
): boolean {
  if (part === undefined || typeof part[key] !== 'number') return false;
  part[key] = ms;
  return true;
}

function tableRefresh(dht: KadDHT): { refreshInterval?: unknown } | undefined {
  return (dht as unknown as { routingTableRefresh?: { refreshInterval?: unknown } })
    .routingTableRefresh;
}

/**
 * Makes a DHT's routing-table refresh as rare as a simulation's self-queries (kad-dht reads
 * the interval each time it schedules the next round, after the one it runs at start); false if
 * the refresh is not where kad-dht 16 keeps it, in which case nothing changes.
 */
export function slowRoutingTableRefresh(dht: KadDHT): boolean {
  return setNumber(tableRefresh(dht), 'refreshInterval', SIMULATION_QUERY_INTERVAL_MS);
}

function kBuckets(dht: KadDHT): { lastPingThreshold?: unknown } | undefined {
  return (dht as unknown as { routingTable?: { kb?: { lastPingThreshold?: unknown } } })
    .routingTable?.kb;
}

/**
 * Makes a DHT's pings of a full bucket's old contacts as rare as a simulation's self-queries
 * (the k-bucket tree reads the age each time a full bucket is offered a peer); false if it is
 * not where kad-dht 16 keeps it, in which case nothing changes.
 */
export function slowOldContactPings(dht: KadDHT): boolean {
  return setNumber(kBuckets(dht), 'lastPingThreshold', SIMULATION_QUERY_INTERVAL_MS);
}

/** What of kad-dht's insides is missing from these DHTs, one line each (empty: all there). */
export function kadInternalsMissing(
  dhts: Record<string, KadDHT>,
  opts: { simulation: boolean; ownPathDepth?: number | undefined },
): string[] {
  const out: string[] = [];
  for (const [name, dht] of Object.entries(dhts)) {
    if (routingTableSize(dht) === undefined || routingTablePeers(dht) === undefined)
      out.push(
        `${name} DHT: kad-dht exposes no routingTable.size or .kb; peers are counted from identify instead`,
      );
    if (!freshPingsReachable(dht))
      out.push(
        `${name} DHT: kad-dht's routing-table pings were not found; every peer it adds is pinged`,
      );
    if (!closestTaggingReachable(dht))
      out.push(
        `${name} DHT: kad-dht's closest-peer tagging round was not found; it runs as kad-dht's own`,
      );
    if (opts.simulation && closestPeerTagger(dht)?.refreshInterval !== SIMULATION_TAGGING_MS)
      out.push(
        `${name} DHT: kad-dht's closest-peer tagger was not found; it runs at its default interval`,
      );
    if (opts.simulation && tableRefresh(dht)?.refreshInterval !== SIMULATION_QUERY_INTERVAL_MS)
      out.push(
        `${name} DHT: kad-dht's routing-table refresh was not found; it runs every 5 minutes`,
      );
    if (opts.simulation && kBuckets(dht)?.lastPingThreshold !== SIMULATION_QUERY_INTERVAL_MS)
      out.push(
        `${name} DHT: kad-dht's age for pinging old contacts was not found; they are pinged after 10 minutes`,
      );
    if ((opts.ownPathDepth ?? 0) > 0 && !ownPathReachable(dht))
      out.push(
        `${name} DHT: kad-dht's k-bucket tree was not found; buckets near the node's own id stop at the table's depth`,
      );
  }
  return out;
}
