/**
 * The closest peers to a key in kad-dht's routing table, found by walking its bucket trie
 * nearest branch first instead of scanning every peer.
 *
 * kad-dht (16.4) answers each FIND_NODE with `routingTable.closestPeers`, which runs
 * `KBucket.closest`: every peer of the table goes through a generator nested as deep as the
 * trie, gets a freshly allocated XOR distance and an insertion into a sorted list. A table
 * holds up to 2^prefixLength × k peers (256 with cidx's default depth and k = 4), and it fills
 * as the swarm grows, so answering one query cost more the larger the swarm (docs/BENCHMARKS.md).
 *
 * In a bit trie, every peer of the subtree that agrees with the target on the branching bit is
 * closer to the target than every peer of the other subtree (the first differing bit decides an
 * XOR distance), so visiting leaves nearest branch first meets them in order of distance and
 * can stop once `count` peers are in hand: the same peers in the same order as the full scan,
 * for a few buckets' work. Patch note for upstream: `KBucket.closest` could walk the trie the
 * same way.
 */
import type { PeerId } from '@libp2p/interface';

/** The shapes of kad-dht's trie nodes (routing-table/k-bucket.js), read only. */
interface TriePeer {
  peerId: PeerId;
  kadId: Uint8Array;
}
export interface Leaf {
  peers: TriePeer[];
}
export interface Inner {
  left: Leaf | Inner;
  right: Leaf | Inner;
}
export type Bucket = Leaf | Inner;

export function isLeaf(b: Bucket): b is Leaf {
  return Array.isArray((b as Leaf).peers);
}

/** Compares the XOR distances of a and b to target: negative when a is closer. */
function compareToTarget(a: Uint8Array, b: Uint8Array, target: Uint8Array): number {
  for (let i = 0; i < target.length; i++) {
    const d =
      ((a[i] as number) ^ (target[i] as number)) - ((b[i] as number) ^ (target[i] as number));
    if (d !== 0) return d;
  }
  return 0;
}

/** Bit `index` of `id`, most significant bit of byte 0 first (as kad-dht's trie reads it). */
export function bit(id: Uint8Array, index: number): number {
  return ((id[index >> 3] as number) >> (7 - (index & 7))) & 1;
}

/**
 * The `count` peers of the trie under `root` closest to `target` (a Kademlia id), closest
 * first, leaving out `exclude`d peers: what `KBucket.closest` yields.
 */
export function closestInTrie(
  root: Bucket,
  target: Uint8Array,
  count: number,
  exclude?: PeerId[],
): PeerId[] {
  const found: TriePeer[] = [];
  const visit = (b: Bucket, depth: number): void => {
    if (found.length >= count) return;
    if (isLeaf(b)) {
      const here = b.peers.filter(
        (p) => exclude === undefined || !exclude.some((x) => x.equals(p.peerId)),
      );
      here.sort((x, y) => compareToTarget(x.kadId, y.kadId, target));
      for (const p of here) found.push(p);
      return;
    }
    const near = bit(target, depth) === 0 ? b.left : b.right;
    const far = near === b.left ? b.right : b.left;
    visit(near, depth + 1);
    visit(far, depth + 1);
  };
  if (count > 0) visit(root, 0);
  return found.slice(0, count).map((p) => p.peerId);
}

interface RoutingTableInternals {
  kb?: { root?: Bucket; kBucketSize?: number };
  closestPeers?: (kadId: Uint8Array, options?: { count?: number; exclude?: PeerId[] }) => PeerId[];
}

/**
 * Makes a kad-dht instance answer `routingTable.closestPeers` with `closestInTrie`. Reached
 * through internals: if their shape changes, the DHT is left as it is (and returns false).
 */
export function fastClosestPeers(dht: unknown): boolean {
  const rt = (dht as { routingTable?: RoutingTableInternals }).routingTable;
  if (rt === undefined || typeof rt.closestPeers !== 'function') return false;
  const original = rt.closestPeers.bind(rt);
  rt.closestPeers = (kadId, options) => {
    const kb = rt.kb;
    const count = options?.count ?? kb?.kBucketSize;
    if (kb?.root === undefined || !isTrie(kb.root) || typeof count !== 'number')
      return original(kadId, options);
    return closestInTrie(kb.root, kadId, count, options?.exclude);
  };
  return true;
}

function isTrie(b: Bucket): boolean {
  return isLeaf(b) || ((b as Inner).left !== undefined && (b as Inner).right !== undefined);
}
