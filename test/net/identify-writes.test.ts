import { randomBytes } from 'node:crypto';
import { PeerRecord, RecordEnvelope } from '@libp2p/peer-record';
import { multiaddr } from '@multiformats/multiaddr';
import { describe, expect, it } from 'vitest';
import type { CidxLibp2p } from '../../src/net/libp2p.ts';
import { cachesPeerRecords } from '../../src/net/peer-cache.ts';
import { identifySealsOnceMissing } from '../../src/net/self-record.ts';
import { streamsSkipKnownProtocolsMissing } from '../../src/net/stream-protocols.ts';
import { connectAnew as connect } from '../support/identify.ts';
import { memoryHosts } from '../support/memory-hosts.ts';

const PING = '/ipfs/ping/1.0.0';

describe('what a host writes to its peer store per connection and per stream', () => {
  const hostOf = memoryHosts('iw');
  const make = (peerRecords = true) => hostOf({ peerRecords });
  const recordOf = async (at: CidxLibp2p, of: CidxLibp2p) => {
    const bytes = (await at.peerStore.get(of.peerId)).peerRecordEnvelope;
    if (bytes === undefined) throw new Error('no signed peer record');
    const envelope = RecordEnvelope.createFromProtobuf(bytes);
    return { bytes, record: PeerRecord.createFromProtobuf(envelope.payload) };
  };

  it('installs all three on a host', async () => {
    const h = await make();
    expect(identifySealsOnceMissing(h)).toEqual([]);
    expect(streamsSkipKnownProtocolsMissing(h)).toEqual([]);
    expect(cachesPeerRecords(h.peerStore)).toBe(true);
  });

  it('identify sends one signed record per set of addresses, sealed again when they change', async () => {
    const [a, b] = await Promise.all([make(), make()]);
    if (a === undefined || b === undefined) throw new Error();
    await connect(b, a);
    const first = await recordOf(b, a);
    await connect(b, a);
    const again = await recordOf(b, a);
    // libp2p alone seals a new record, with a new sequence number, for every connection.
    expect(Buffer.from(again.bytes).equals(Buffer.from(first.bytes))).toBe(true);
    const added = `/memory/iw-${randomBytes(4).toString('hex')}`;
    await (
      a as unknown as {
        components: { transportManager: { listen(m: unknown[]): Promise<void> } };
      }
    ).components.transportManager.listen([multiaddr(added)]);
    await connect(b, a);
    const changed = await recordOf(b, a);
    expect(changed.record.seqNumber > first.record.seqNumber).toBe(true);
    expect(changed.record.multiaddrs.map(String)).toContain(added);
    // The record is a valid one: libp2p's own check of it passes.
    await expect(
      RecordEnvelope.openAndCertify(changed.bytes, PeerRecord.DOMAIN),
    ).resolves.toBeDefined();
  });

  it("writes a stream's protocol only while the record lacks it, following changes to it", async () => {
    const [a, b] = await Promise.all([make(), make()]);
    if (a === undefined || b === undefined) throw new Error();
    await connect(a, b);
    expect((await a.peerStore.get(b.peerId)).protocols).toContain(PING);
    const merges: string[] = [];
    const store = a.peerStore as unknown as { merge: (...args: unknown[]) => Promise<unknown> };
    const merge = store.merge;
    store.merge = (...args: unknown[]) => {
      const data = args[1] as { protocols?: string[] };
      if (data.protocols !== undefined) merges.push(...data.protocols);
      return merge(...args);
    };
    for (let i = 0; i < 20; i++) await a.services.ping.ping(b.peerId);
    // libp2p alone merges the protocol once per stream: 20 times here.
    expect(merges.filter((p) => p === PING).length).toBeLessThanOrEqual(1);
    // The record loses it (as identify may replace a peer's protocols): the next stream writes it.
    await a.peerStore.patch(b.peerId, { protocols: ['/other/1.0.0'] });
    merges.length = 0;
    await a.services.ping.ping(b.peerId);
    expect(merges).toEqual([PING]);
    expect((await a.peerStore.get(b.peerId)).protocols).toContain(PING);
  });
});
