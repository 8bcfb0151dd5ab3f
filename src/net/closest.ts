import { createHash } from 'node:crypto';
import type { PeerId } from '@libp2p/interface';
import type { KadDHT } from '@libp2p/kad-dht';

// Kademlia ids as kad-dht computes them: SHA-256 of the key, SHA-256 of the peer id multihash.
const peerIds = new Map<string, Uint8Array>();

function kadIdOfKey(key: Uint8Array): Uint8Array {
  return createHash('sha256').update(key).digest();
}

export function kadIdOfPeer(peer: PeerId): Uint8Array {
  const s = peer.toString();
  let id = peerIds.get(s);
  if (id === undefined) {
    id = createHash('sha256').update(peer.toMultihash().bytes).digest();
    if (peerIds.size > 100_000) peerIds.clear();
    peerIds.set(s, id);
  }
  return id;
}

/** Compares the XOR distances of a and b to target: negative when a is closer. */
function compareDistance(a: Uint8Array, b: Uint8Array, target: Uint8Array): number {
  for (let i = 0; i < target.length; i++) {
    const da = (a[i] as number) ^ (target[i] as number);
    const db = (b[i] as number) ^ (target[i] as number);
    if (da !== db) return da - db;
  }
  return 0;
}

/** Sorts peers by XOR distance to the key, closest first (duplicates removed). */
export function sortByDistance(peers: Iterable<PeerId>, key: Uint8Array): PeerId[] {
  const target = kadIdOfKey(key);
  const seen = new Map<string, PeerId>();
  for (const p of peers) seen.set(p.toString(), p);
  return [...seen.values()].sort((a, b) => compareDistance(kadIdOfPeer(a), kadIdOfPeer(b), target));
}

/** What one lookup cost: queries sent, the depth of the path to the closest peer, time. */
export interface LookupStats {
  messages: number;
  hops: number;
  ms: number;
  found: number;
}

/**
 * The peers closest to a key as the DHT's iterative lookup finds them, plus the local node,
 * closest first. The local node counts while its DHT serves: a swarm of one, or a node whose
 * neighbours are all gone, still stores and answers for every key; a node in client mode (it
 * cannot be dialled) is in nobody's routing table and holds no key. If the lookup times out before it
 * finishes, the peers it heard of on the way are used. `onStats` receives the lookup's cost:
 * hops are counted as the number of responses on the path from our routing table to the final
 * closest peer. `onHeard` receives, while the lookup runs, the peers it queries (from our
 * routing table first) and the closer ones they tell of: a caller may start on the closest so
 * far before the lookup ends.
 */
export async function closestPeers(
  dht: KadDHT,
  self: PeerId,
  key: Uint8Array,
  signal: AbortSignal,
  onStats?: (s: LookupStats) => void,
  onHeard?: (peers: PeerId[]) => void,
): Promise<PeerId[]> {
  const started = Date.now();
  const final: PeerId[] = [];
  const heard: PeerId[] = [];
  const depth = new Map<string, number>();
  let messages = 0;
  try {
    for await (const ev of dht.getClosestPeers(key, { signal })) {
      if (ev.name === 'SEND_QUERY') {
        messages++;
        if (!depth.has(ev.to.toString())) depth.set(ev.to.toString(), 1);
        onHeard?.([ev.to]);
      } else if (ev.name === 'FINAL_PEER') final.push(ev.peer.id);
      else if (ev.name === 'PEER_RESPONSE') {
        const d = (depth.get(ev.from.toString()) ?? 1) + 1;
        for (const p of ev.closer) {
          heard.push(p.id);
          const k = p.id.toString();
          if ((depth.get(k) ?? Number.POSITIVE_INFINITY) > d) depth.set(k, d);
        }
        if (ev.closer.length > 0) onHeard?.(ev.closer.map((p) => p.id));
      }
    }
  } catch (err) {
    if (!signal.aborted) throw err;
  }
  const found = final.length > 0 ? final : heard;
  const sorted = sortByDistance(dht.getMode() === 'server' ? [self, ...found] : found, key);
  if (onStats) {
    const closest = sorted.find((p) => !p.equals(self));
    const hops = closest === undefined ? 0 : (depth.get(closest.toString()) ?? 1);
    onStats({ messages, hops, ms: Date.now() - started, found: final.length });
  }
  return sorted;
}
