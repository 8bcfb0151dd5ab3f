import { generateKeyPair } from '@libp2p/crypto/keys';
import type { Peer, PeerId } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import type { Libp2p } from 'libp2p';
import { describe, expect, it } from 'vitest';
import {
  ConnectedRecords,
  connectedRecords,
  sharedProtocols,
} from '../../src/net/connected-records.ts';

const newPeerId = async () => peerIdFromPrivateKey(await generateKeyPair('Ed25519'));
const record = (id: PeerId, protocols: string[] = []): Peer => ({
  id,
  addresses: [],
  protocols,
  metadata: new Map(),
  tags: new Map(),
});

/** The two events and the connection list the tracker follows, driven by the test. */
class Host extends EventTarget {
  readonly connected = new Set<string>();
  getConnections(peerId?: PeerId) {
    return peerId !== undefined && this.connected.has(peerId.toString()) ? [{}] : [];
  }
  update(peer: Peer) {
    this.dispatchEvent(new CustomEvent('peer:update', { detail: { peer } }));
  }
  disconnect(id: PeerId) {
    this.connected.delete(id.toString());
    this.dispatchEvent(new CustomEvent('peer:disconnect', { detail: id }));
  }
}
const track = (host: Host, now: () => number) =>
  new ConnectedRecords(host as unknown as Libp2p, now);

describe("connected peers' records", () => {
  it('follows the updates of connected peers and forgets them at disconnect', async () => {
    const host = new Host();
    let t = 1000;
    const records = track(host, () => t);
    const [a, b] = [await newPeerId(), await newPeerId()];
    host.connected.add(a.toString());
    host.update(record(a, ['/x']));
    host.update(record(b, ['/x'])); // not connected: not kept
    expect(records.get(a)?.protocols).toEqual(['/x']);
    expect(records.get(a)?.writtenAt).toBe(1000);
    expect(records.get(b)).toBeUndefined();
    t = 2000;
    host.update(record(a, ['/y']));
    expect(records.get(a)).toMatchObject({ protocols: ['/y'], writtenAt: 2000 });
    host.disconnect(a);
    expect(records.get(a)).toBeUndefined();
    expect(records.size).toBe(0);
  });

  it("keeps a call's answer unless an update raced it or the peer left", async () => {
    const host = new Host();
    let t = 5;
    const records = track(host, () => t);
    const a = await newPeerId();
    host.connected.add(a.toString());
    // A read: kept, with no time of writing.
    await records.through(a, false, async () => record(a, ['/read']));
    expect(records.get(a)).toEqual({ protocols: ['/read'], tags: new Map() });
    // A write: kept with its time; a later read keeps that time.
    await records.through(a, true, async () => record(a, ['/written']));
    expect(records.get(a)?.writtenAt).toBe(5);
    t = 9;
    await records.through(a, false, async () => record(a, ['/written']));
    expect(records.get(a)?.writtenAt).toBe(5);
    // An update dispatched while a read runs: the read may hold the record before it.
    let release = () => {};
    const slow = records.through(a, false, async () => {
      await new Promise<void>((r) => {
        release = r;
      });
      return record(a, ['/stale']);
    });
    const other = records.through(a, false, async () => record(a, ['/fresh-read']));
    await other;
    expect(records.get(a)?.protocols).toEqual(['/fresh-read']);
    host.update(record(a, ['/updated']));
    release();
    expect((await slow).protocols).toEqual(['/stale']);
    expect(records.get(a)?.protocols).toEqual(['/updated']);
    // The peer left while a call ran: nothing kept.
    host.disconnect(a);
    await records.through(a, true, async () => record(a, ['/late']));
    expect(records.get(a)).toBeUndefined();
    // A call that fails keeps nothing and leaves no call behind.
    host.connected.add(a.toString());
    await expect(
      records.through(a, true, async () => {
        throw new Error('store down');
      }),
    ).rejects.toThrow('store down');
    expect(records.get(a)).toBeUndefined();
    host.update(record(a, ['/after']));
    await records.through(a, false, async () => record(a, ['/after']));
    expect(records.get(a)?.protocols).toEqual(['/after']);
  });

  it("keeps one list for the records that name the same protocols, not each record's", async () => {
    const host = new Host();
    const records = track(host, () => 0);
    const [a, b, c] = [await newPeerId(), await newPeerId(), await newPeerId()];
    for (const p of [a, b, c]) host.connected.add(p.toString());
    const mine = ['/cidx/index/1.0.0', '/ipfs/ping/1.0.0'];
    host.update(record(a, [...mine]));
    host.update(record(b, [...mine]));
    host.update(record(c, [...mine].reverse()));
    const [ra, rb, rc] = [records.get(a), records.get(b), records.get(c)];
    expect(ra?.protocols).toEqual(mine);
    expect(ra?.protocols).toBe(rb?.protocols);
    expect(rc?.protocols).not.toBe(ra?.protocols);
    expect(Object.isFrozen(ra?.protocols)).toBe(true);
    expect(sharedProtocols([...mine])).toBe(ra?.protocols);
    // What a record's list was taken from may change later: the kept list does not.
    const changing = ['/a'];
    host.update(record(a, changing));
    changing.push('/b');
    expect(records.get(a)?.protocols).toEqual(['/a']);
  });

  it('is one tracker per host', () => {
    const [h1, h2] = [new Host(), new Host()] as unknown as Libp2p[];
    if (h1 === undefined || h2 === undefined) throw new Error();
    expect(connectedRecords(h1)).toBe(connectedRecords(h1));
    expect(connectedRecords(h1)).not.toBe(connectedRecords(h2));
  });
});
