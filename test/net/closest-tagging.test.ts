import { generateKeyPair } from '@libp2p/crypto/keys';
import type { PeerId } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { describe, expect, it } from 'vitest';
import type { CidxLibp2p } from '../../src/net/libp2p.ts';
import { memoryHosts } from '../support/memory-hosts.ts';

interface Tagger {
  newPeers: { add(peer: { id: PeerId; multiaddrs: [] }): Promise<void>; peers: unknown[] };
  updatePeerTags(): Promise<void>;
}

/**
 * kad-dht tags the peers of its closest-peer list in the peer store, and untags those that drop
 * out; a node's own round must write the same tags, and write nothing while the list stays.
 */
describe('closest-peer tagging', () => {
  // Simulation hosts: the tagger's own timer every 120 s, not 5 s: only the rounds the test runs run.
  const make = memoryHosts('closest-tagging');
  const started = () => make();
  const taggerOf = (h: CidxLibp2p) =>
    (h.services.profiles as unknown as { routingTable: { closestPeerTagger: Tagger } }).routingTable
      .closestPeerTagger;
  const peers = (n: number) =>
    Promise.all(
      Array.from({ length: n }, async () => peerIdFromPrivateKey(await generateKeyPair('Ed25519'))),
    );
  /** The peers among `ids` that carry kad-dht's tags, with the tags' values. */
  const tagged = async (h: CidxLibp2p, ids: PeerId[]) => {
    const out: string[] = [];
    for (const id of ids) {
      const tags = (await h.peerStore.has(id)) ? (await h.peerStore.get(id)).tags : new Map();
      const close = tags.get('kad-close')?.value;
      const alive = tags.get('keep-alive-kad-dht')?.value;
      if (close !== undefined || alive !== undefined) out.push(`${id} ${close} ${alive}`);
    }
    return out.sort();
  };
  /** Runs the same rounds on a tagger and returns what was tagged after each. */
  const rounds = async (h: CidxLibp2p, first: PeerId[], more: PeerId[]) => {
    const t = taggerOf(h);
    const all = [...first, ...more];
    let merges = 0;
    const merge = h.peerStore.merge.bind(h.peerStore);
    h.peerStore.merge = (...args) => {
      merges++;
      return merge(...args);
    };
    for (const id of first) await t.newPeers.add({ id, multiaddrs: [] });
    await t.updatePeerTags();
    const afterFirst = await tagged(h, all);
    const mergesFirst = merges;
    await t.updatePeerTags();
    const mergesUnchanged = merges - mergesFirst;
    for (const id of more) await t.newPeers.add({ id, multiaddrs: [] });
    await t.updatePeerTags();
    return { afterFirst, mergesFirst, mergesUnchanged, afterMore: await tagged(h, all) };
  };

  it('tags the list as kad-dht does, untags who drops out, and writes nothing while it stays', async () => {
    const [ours, theirs] = await Promise.all([started(), started()]);
    expect(Object.hasOwn(taggerOf(ours), 'updatePeerTags')).toBe(true);
    // The other host runs kad-dht's own round, for comparison.
    delete (taggerOf(theirs) as Partial<Tagger>).updatePeerTags;
    expect(Object.hasOwn(taggerOf(theirs), 'updatePeerTags')).toBe(false);
    const first = await peers(12);
    // 12 + 14 peers overflow the list of 20: some of the first drop out at one host or both.
    const more = await peers(14);
    // Distances are to each host's own id, so each host keeps its own 20: compare each host's
    // tags with its own list, and the two hosts' behaviour with each other.
    const a = await rounds(ours, first, more);
    const b = await rounds(theirs, first, more);
    const expected = (h: CidxLibp2p) =>
      (taggerOf(h).newPeers.peers as Array<{ peer: { id: PeerId } }>)
        .map(({ peer }) => `${peer.id} 50 1`)
        .sort();
    for (const [h, r] of [
      [ours, a],
      [theirs, b],
    ] as const) {
      expect(r.afterFirst).toEqual(first.map((id) => `${id} 50 1`).sort());
      expect(r.mergesFirst).toBe(12);
      expect(r.mergesUnchanged).toBe(0);
      expect(r.afterMore).toHaveLength(20);
      expect(r.afterMore).toEqual(expected(h));
    }
  });
});
