import { randomBytes } from 'node:crypto';
import { generateKeyPair, publicKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PeerId } from '@libp2p/interface';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { communityAddressKey } from '../../src/keys/rehash.ts';
import { IndexClient } from '../../src/net/client.ts';
import { sortByDistance } from '../../src/net/closest.ts';
import { blobToWire, WIRE_VERSION } from '../../src/net/codec.ts';
import { Meter } from '../../src/net/meter.ts';
import { communityId, NONCE_BYTES, signRecord } from '../../src/net/records.ts';
import type { CidxNode } from '../../src/node/node.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import { startSwarm, stopAll, WAIT_MS, waitFor } from '../support/swarm.ts';

/**
 * A community's entry that reached only a node far from its key — as when the owner's lookup
 * ends on peers off the set routing tables agree on — climbs, hand-on by hand-on, to the key's
 * replicas, which is where a read routed over open connections ends (src/net/route.ts).
 */
describe("a community's entry stored off its key, on a 20-node swarm", () => {
  const swarm = { index: { mode: 'lsh' as const, n: 4, m: 1, seed: 'spread' } };
  let nodes: CidxNode[];

  beforeAll(async () => {
    nodes = await startSwarm(20, { swarm });
  }, 240_000);

  afterAll(async () => {
    await stopAll(nodes);
  });

  it('is handed on to the replicas the routing tables have, and read there', async () => {
    const key = await generateKeyPair('Ed25519');
    const nonce = randomBytes(NONCE_BYTES);
    const id = communityId(publicKeyToProtobuf(key.publicKey), nonce);
    const contact = (nodes[0] as CidxNode).addrs[0] as string;
    const rec = await signRecord(key, {
      kind: 'contacts',
      id,
      nonce,
      version: 1,
      addrs: [contact],
    });
    const desc = await signRecord(key, {
      kind: 'descriptor',
      id,
      nonce,
      version: 1,
      profile: parseProfile({ weights: { spread: 1 } }),
    });
    const order = sortByDistance(
      nodes.map((n) => n.peerId),
      communityAddressKey(id),
    );
    const node = (p: PeerId) => nodes.find((n) => n.peerId.equals(p)) as CidxNode;
    const holds = (p: PeerId) => node(p).table.contacts(id, Date.now()).contacts?.version === 1;
    const [far, sender] = [order.at(-1) as PeerId, order.at(-2) as PeerId];
    const client = new IndexClient(
      node(sender).libp2p,
      { timeoutMs: 30_000, maxFrameBytes: 1 << 20 },
      new Meter(),
    );
    const res = await client.request(far, {
      v: WIRE_VERSION,
      swarm: node(far).swarm.digest,
      t: 'contacts-put',
      rec: blobToWire(rec),
      desc: blobToWire(desc),
    });
    expect(res.outcome).toBe('stored');
    // Stored at the farthest node alone, the entry reaches the three closest by hand-ons only.
    await waitFor(() => order.slice(0, 3).every(holds), WAIT_MS, 'the entry at its replicas');
    // A node that never held it reads it, routed or looked up, with its contacts.
    const reader = order.slice(3, -1).find((p) => !holds(p));
    expect(reader).toBeDefined();
    const got = await node(reader as PeerId).get(id);
    expect(got.contacts).toEqual([contact]);
    // The spread stays near the key: not every node came to hold it.
    expect(order.filter(holds).length).toBeLessThan(nodes.length);
  });
});
