/**
 * kad-dht's closest-peer tagging, without its idle cost.
 *
 * kad-dht (16.x) keeps the 20 peers closest to the node that answered a ping and, every few
 * seconds, tags them in the peer store (so the connection manager keeps them) and untags those
 * that dropped out. To find which changed it builds a `PeerSet` of the list and takes the
 * differences both ways; a `PeerSet` holds peer ids as base58 text and turns each back into a
 * peer id to iterate, so every round decodes and encodes about 80 peer ids — also when nothing
 * changed, which is nearly always. One node pays nothing for it; 10,000 in one process spent a
 * tenth of their CPU there (docs/BENCHMARKS.md), a cost per node per second that made a
 * message look dearer the larger the swarm.
 *
 * `cheapClosestPeerTagging` gives the tagger a round that compares the list with the last one
 * through the peer ids' cached text and returns when nothing changed; when something did, it
 * writes the same tags kad-dht writes. kad-dht has no option for this; reached through its
 * internals, checked by `kadInternalsMissing`, and left alone if their shape changes.
 */
import type { PeerId, PeerStore } from '@libp2p/interface';
import { KEEP_ALIVE } from '@libp2p/interface';

/** kad-dht's name for the tag that keeps a connection open (its constants.js). */
const KEEP_ALIVE_TAG = `${KEEP_ALIVE}-kad-dht`;

/** kad-dht's closest-peer tagger, as far as cidx reads it (also its interval: kad-internals.ts). */
export interface TaggerInternals {
  refreshInterval?: unknown;
  components?: { peerStore?: PeerStore };
  newPeers?: { peers: Array<{ peer: { id: PeerId } }> };
  closeTagName?: unknown;
  closeTagValue?: unknown;
  updatePeerTags?: () => Promise<void>;
}

export function closestPeerTagger(dht: unknown): TaggerInternals | undefined {
  return (dht as { routingTable?: { closestPeerTagger?: TaggerInternals } }).routingTable
    ?.closestPeerTagger;
}

/** Whether the DHT's tagger has what `cheapClosestPeerTagging` replaces and reads. */
export function closestTaggingReachable(dht: unknown): boolean {
  const t = closestPeerTagger(dht);
  return (
    typeof t?.updatePeerTags === 'function' &&
    typeof t.components?.peerStore?.merge === 'function' &&
    typeof t.closeTagName === 'string' &&
    typeof t.closeTagValue === 'number'
  );
}

/** Replaces the tagger's round (false, and nothing changed, if kad-dht's shape is not there). */
export function cheapClosestPeerTagging(dht: unknown): boolean {
  const t = closestPeerTagger(dht);
  if (t === undefined || !closestTaggingReachable(dht)) return false;
  const peerStore = t.components?.peerStore as PeerStore;
  const name = t.closeTagName as string;
  const value = t.closeTagValue as number;
  let tagged = new Map<string, PeerId>();
  t.updatePeerTags = async () => {
    // kad-dht makes the list at start; before, there is none, and nothing to tag.
    const list = t.newPeers?.peers ?? [];
    // The list holds each peer once: the same size and every peer tagged is the same set.
    if (list.length === tagged.size && list.every(({ peer }) => tagged.has(peer.id.toString())))
      return;
    const now = new Map(list.map(({ peer }) => [peer.id.toString(), peer.id]));
    const added = [...now].filter(([k]) => !tagged.has(k)).map(([, id]) => id);
    const removed = [...tagged].filter(([k]) => !now.has(k)).map(([, id]) => id);
    tagged = now;
    await Promise.all([
      ...added.map((id) =>
        peerStore.merge(id, { tags: { [name]: { value }, [KEEP_ALIVE_TAG]: { value: 1 } } }),
      ),
      ...removed.map((id) =>
        peerStore.merge(id, { tags: { [name]: undefined, [KEEP_ALIVE_TAG]: undefined } }),
      ),
    ]);
  };
  return true;
}
