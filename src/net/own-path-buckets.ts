/**
 * Kademlia's own rule for splitting routing-table buckets, on kad-dht's trie.
 *
 * kad-dht (16.x) splits any full bucket until its trie is `prefixLength` bits deep (6 by
 * default), and a bucket at that depth keeps the first k peers it met. With cidx's k = 4 a
 * table knows 4 peers in each 64th of the id space: past 256 nodes a key's later neighbours are
 * in few tables, stores miss them, and they still count themselves replicas (docs/BENCHMARKS.md,
 * "Routing tables deep enough for the swarm"). A deeper trie everywhere keeps every peer a node
 * meets, which took 10,000 simulated nodes past 20 GiB. Kademlia splits only the bucket that
 * holds the node's own id: a table of about k × log2(N) peers that knows its own neighbourhood
 * in full, so the nodes near a key know each other.
 *
 * Here a full bucket on the path of the node's own id may split down to `depth` bits; every
 * other bucket stops at kad-dht's `prefixLength`. kad-dht has no option for this: its k-bucket
 * tree's `_add` is wrapped. `_add` compares `bucket.depth < this.prefixLength` before its first
 * await, so setting the depth just before each call is safe. Patch note for upstream: past
 * `prefixLength`, split only the bucket that holds the local id.
 */

import { type Bucket, bit, isLeaf } from './kad-closest.ts';

interface KBucketInternals {
  prefixLength: number;
  root: Bucket;
  localPeer?: { kadId: Uint8Array };
  _add(peer: { kadId: Uint8Array }, options?: unknown): Promise<void>;
}

/**
 * The depth of the leaf bucket an id falls in, walked bit by bit (kad-dht's own
 * `_determineBucket` turns the id into a string of 256 digits first, on every offer).
 */
function leafDepth(root: Bucket, kadId: Uint8Array): number {
  let bucket = root;
  let depth = 0;
  while (!isLeaf(bucket)) bucket = bit(kadId, depth++) === 0 ? bucket.left : bucket.right;
  return depth;
}

function kBucketOf(dht: unknown): KBucketInternals | undefined {
  const kb = (dht as { routingTable?: { kb?: Partial<KBucketInternals> } }).routingTable?.kb;
  if (
    kb === undefined ||
    typeof kb.prefixLength !== 'number' ||
    typeof kb._add !== 'function' ||
    typeof kb.root !== 'object'
  )
    return undefined;
  return kb as KBucketInternals;
}

/** Whether the DHT's k-bucket tree has what `splitOwnPath` wraps and reads. */
export function ownPathReachable(dht: unknown): boolean {
  return kBucketOf(dht) !== undefined;
}

/** Whether the first `bits` bits of a and b are the same (most significant bit first). */
export function samePrefix(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  const whole = bits >> 3;
  for (let i = 0; i < whole; i++) if (a[i] !== b[i]) return false;
  const rest = bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (((a[whole] as number) ^ (b[whole] as number)) & mask) === 0;
}

/**
 * Lets the DHT's buckets on its own id's path split down to `depth` bits (false, and nothing
 * changed, if kad-dht's shape is not there). Before the DHT starts: the local id is read at
 * each call, once start has set it.
 */
export function splitOwnPath(dht: unknown, depth: number): boolean {
  const kb = kBucketOf(dht);
  if (kb === undefined) return false;
  const shallow = kb.prefixLength;
  if (depth <= shallow) return true;
  const add = kb._add.bind(kb);
  kb._add = (peer, options) => {
    const local = kb.localPeer?.kadId;
    const at = leafDepth(kb.root, peer.kadId);
    const own = local !== undefined && samePrefix(peer.kadId, local, at);
    kb.prefixLength = own ? depth : shallow;
    return add(peer, options);
  };
  return true;
}
