import { randomBytes } from 'node:crypto';
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { PeerId, PrivateKey } from '@libp2p/interface';
import { encode } from 'cborg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexKeys } from '../../src/keys/index-keys.ts';
import { IndexClient, RemoteError } from '../../src/net/client.ts';
import { blobToWire, type Request, WIRE_VERSION } from '../../src/net/codec.ts';
import { Meter } from '../../src/net/meter.ts';
import { signRecord } from '../../src/net/records.ts';
import { CidxNode } from '../../src/node/node.ts';
import type { OwnedCommunity } from '../../src/node/ownership.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import { hex } from '../../src/util/bytes.ts';
import { startSwarm, stopAll, TEST_TIMING, variedProfiles, waitFor } from '../support/swarm.ts';

/**
 * Hostile writes sent straight to the nodes that hold a community's records: none may change
 * what the swarm returns for it.
 */
describe('forged and replayed writes change nothing', () => {
  let nodes: CidxNode[];
  let client: IndexClient;
  let owner: CidxNode;
  let id: string;
  let v1: OwnedCommunity;
  const [w1, w2] = variedProfiles(2, 20, 11, 1);
  const p1 = parseProfile(w1);
  const p2 = parseProfile(w2);

  let ownerKey: PrivateKey;
  let attacker: CidxNode;

  beforeAll(async () => {
    nodes = await startSwarm(5);
    // The owner joins with a key the test holds, to sign genuine records for replays.
    ownerKey = await generateKeyPair('Ed25519');
    owner = await CidxNode.create({
      transport: 'memory',
      listen: [`/memory/forgery-owner-${randomBytes(4).toString('hex')}`],
      encryption: 'plaintext',
      privateKey: ownerKey,
      bootstrap: (nodes[0] as CidxNode).addrs,
      timing: TEST_TIMING,
    });
    await owner.start();
    nodes.push(owner);
    await waitFor(() => owner.info().peers.profiles >= 3, undefined, 'routing table');
    attacker = nodes[4] as CidxNode;
    client = new IndexClient(
      attacker.libp2p,
      { timeoutMs: 30_000, maxFrameBytes: 1 << 20 },
      new Meter(),
    );
    id = (await owner.create(p1)).id;
    v1 = owner.owned(id) as OwnedCommunity;
    await owner.update(id, p2);
  });

  afterAll(async () => {
    await stopAll(nodes);
  });

  /** The nodes (but the attacker, who sends from its own host) holding the community under k. */
  function holdersOf(k: Uint8Array): PeerId[] {
    return nodes
      .filter(
        (n) =>
          n !== attacker && [...n.table.descriptors(hex(k), Date.now())].some((d) => d.id === id),
      )
      .map((n) => n.peerId);
  }

  async function sendAll(peers: PeerId[], req: Request): Promise<string[]> {
    return Promise.all(
      peers.map((p) =>
        client.request(p, req).then(
          (r) => r.outcome ?? 'ok',
          (e: unknown) => (e instanceof RemoteError ? e.code : String(e)),
        ),
      ),
    );
  }

  async function expectUnchanged(): Promise<void> {
    for (const n of nodes) {
      const [best] = await n.search(p2);
      expect([best?.id, best?.version, best?.similarity]).toEqual([id, 2, 1]);
    }
  }

  const base = () => ({ v: WIRE_VERSION as 1, swarm: (nodes[0] as CidxNode).swarm.digest });
  const keptKey = () => {
    const old = new Set(indexKeys(p1, (nodes[0] as CidxNode).swarm.params.index).map(hex));
    return indexKeys(p2, (nodes[0] as CidxNode).swarm.params.index).find((k) =>
      old.has(hex(k)),
    ) as Uint8Array;
  };

  it('a descriptor for the community signed by another key is refused', async () => {
    const other = await generateKeyPair('Ed25519');
    const key = indexKeys(p1, owner.swarm.params.index)[0] as Uint8Array;
    const forged = await signRecord(other, {
      kind: 'descriptor',
      id,
      nonce: v1.nonce,
      version: 9,
      profile: p1,
    });
    const peers = holdersOf(indexKeys(p2, owner.swarm.params.index)[0] as Uint8Array);
    expect(peers.length).toBeGreaterThan(0);
    expect(
      await sendAll(peers, { ...base(), t: 'update', key, rec: blobToWire(forged), s: 5 }),
    ).toEqual(peers.map(() => 'bad-record'));
    await expectUnchanged();
  });

  it("the owner's record with a changed payload (bad signature) is refused", async () => {
    const key = indexKeys(p2, owner.swarm.params.index)[0] as Uint8Array;
    const real = (owner.owned(id) as OwnedCommunity).descriptor;
    const tampered = {
      ...real,
      payload: encode({ t: 'd', id, n: v1.nonce, v: 3, w: [['evil', 1]] }),
    };
    const peers = holdersOf(key);
    expect(
      await sendAll(peers, { ...base(), t: 'update', key, rec: blobToWire(tampered), s: 5 }),
    ).toEqual(peers.map(() => 'bad-record'));
    await expectUnchanged();
  });

  it('a replayed older version is refused as stale', async () => {
    const key = keptKey();
    expect(key).toBeDefined();
    const peers = holdersOf(key);
    expect(
      await sendAll(peers, { ...base(), t: 'store', key, rec: blobToWire(v1.descriptor), s: 5 }),
    ).toEqual(peers.map(() => 'stale'));
    await expectUnchanged();
  });

  it('a tombstone or removal signed by another key is refused', async () => {
    const other = await generateKeyPair('Ed25519');
    const key = indexKeys(p2, owner.swarm.params.index)[0] as Uint8Array;
    const peers = holdersOf(key);
    const tomb = await signRecord(other, { kind: 'tombstone', id, nonce: v1.nonce, version: 99 });
    const removal = await signRecord(other, {
      kind: 'removal',
      id,
      nonce: v1.nonce,
      version: 99,
      key,
    });
    expect(await sendAll(peers, { ...base(), t: 'remove', rec: blobToWire(tomb) })).toEqual(
      peers.map(() => 'bad-record'),
    );
    expect(await sendAll(peers, { ...base(), t: 'remove', rec: blobToWire(removal) })).toEqual(
      peers.map(() => 'bad-record'),
    );
    await expectUnchanged();
  });

  it('a removal for one key cannot be replayed on another', async () => {
    const keys = indexKeys(p2, owner.swarm.params.index);
    const [k0, k1] = keys as [Uint8Array, Uint8Array];
    // A genuine removal of version 2 for k0 (as an update would send) replayed on k1's holders:
    // it names k0, so at k1's holders it removes nothing of k1.
    const removal = await signRecord(ownerKey, {
      kind: 'removal',
      id,
      nonce: v1.nonce,
      version: 2,
      key: k0,
    });
    await sendAll(holdersOf(k1), { ...base(), t: 'remove', rec: blobToWire(removal) });
    expect(holdersOf(k1).length).toBeGreaterThan(0);
    await expectUnchanged();
  });

  it('after a dissolve, a replayed descriptor cannot bring the community back', async () => {
    const key = indexKeys(p2, owner.swarm.params.index)[0] as Uint8Array;
    const before = holdersOf(key);
    const live = (owner.owned(id) as OwnedCommunity).descriptor;
    await owner.dissolve(id);
    expect(
      await sendAll(before, { ...base(), t: 'store', key, rec: blobToWire(live), s: 5 }),
    ).toEqual(before.map(() => 'dissolved'));
    for (const n of nodes) expect((await n.search(p2)).map((r) => r.id)).not.toContain(id);
  });
});
