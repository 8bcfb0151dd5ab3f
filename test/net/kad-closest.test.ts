import { generateKeyPair } from '@libp2p/crypto/keys';
import type { PeerId } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeededStream } from '../../src/keys/random.ts';
import { kadIdOfPeer } from '../../src/net/closest.ts';
import { closestInTrie, fastClosestPeers } from '../../src/net/kad-closest.ts';
import { type CidxLibp2p, createHost } from '../../src/net/libp2p.ts';

interface Internals {
  kb: {
    root: never;
    verify: () => Promise<boolean>;
    closest: (id: Uint8Array, o: { count: number; exclude?: PeerId[] }) => Iterable<PeerId>;
  };
  add: (p: PeerId) => Promise<void>;
  closestPeers: (id: Uint8Array, o?: { count?: number; exclude?: PeerId[] }) => PeerId[];
  size: number;
}

const bytes = (s: SeededStream) => new Uint8Array(s.fill(new Uint32Array(8)).buffer);

// kad-dht's own routing table, filled with 400 peers (its trie caps at 2^6 buckets of k = 4),
// against which the trie walk must give exactly what KBucket.closest gives.
describe('closest peers by walking the routing-table trie', () => {
  let host: CidxLibp2p;
  let rt: Internals;
  const peers: PeerId[] = [];

  beforeAll(async () => {
    host = await createHost({
      transport: 'memory',
      encryption: 'plaintext',
      listen: ['/memory/kad-closest-test'],
      dht: { kBucketSize: 4 },
    });
    await host.start();
    rt = (host.services.profiles as unknown as { routingTable: Internals }).routingTable;
    // The table pings a new contact before adding it; these peers exist only as ids.
    rt.kb.verify = async () => true;
    for (let i = 0; i < 400; i++) {
      const p = peerIdFromPrivateKey(await generateKeyPair('Ed25519'));
      peers.push(p);
      await rt.add(p);
    }
  }, 60_000);

  afterAll(async () => {
    await host?.stop();
  });

  it('holds a full trie to compare against', () => {
    expect(rt.size).toBeGreaterThan(150);
  });

  it('gives the peers KBucket.closest gives, in the same order, for any target and count', () => {
    const random = new SeededStream('kad-closest', 'test');
    for (let i = 0; i < 300; i++) {
      const target = i % 3 === 0 ? kadIdOfPeer(peers[i] as PeerId) : bytes(random);
      const count = [1, 3, 4, 7, 20, 64, 500][i % 7] as number;
      const exclude = i % 2 === 0 ? peers.slice(i, i + 5) : undefined;
      const options = exclude === undefined ? { count } : { count, exclude };
      const expected = [...rt.kb.closest(target, options)].map(String);
      expect(closestInTrie(rt.kb.root, target, count, exclude).map(String)).toEqual(expected);
    }
  });

  it('answers routingTable.closestPeers through the walk once installed', () => {
    const target = bytes(new SeededStream('kad-closest', 'installed'));
    const before = rt.closestPeers(target, { count: 6 }).map(String);
    expect(fastClosestPeers(host.services.profiles)).toBe(true);
    expect(rt.closestPeers(target, { count: 6 }).map(String)).toEqual(before);
    expect(rt.closestPeers(target).map(String)).toEqual(
      [...rt.kb.closest(target, { count: 4 })].map(String),
    );
  });

  it('leaves a DHT without the expected internals alone', () => {
    expect(fastClosestPeers({})).toBe(false);
    expect(fastClosestPeers({ routingTable: {} })).toBe(false);
  });
});
