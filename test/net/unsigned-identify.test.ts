import { describe, expect, it } from 'vitest';
import { IDENTIFY_PROTOCOL } from '../../src/net/protocols.ts';
import { withoutSignedRecord } from '../../src/net/unsigned-identify.ts';
import { CIDX_VERSION } from '../../src/net/version.ts';
import { WireMeter } from '../../src/net/wire-meter.ts';
import { connectAnew as connect } from '../support/identify.ts';
import { memoryHosts } from '../support/memory-hosts.ts';

const varint = (n: number): number[] => (n < 128 ? [n] : [(n & 0x7f) | 0x80, ...varint(n >> 7)]);
/** A protobuf length-delimited field. */
const field = (n: number, bytes: number[]) => [(n << 3) | 2, ...varint(bytes.length), ...bytes];
/** A varint field. */
const int = (n: number, v: number) => [n << 3, ...varint(v)];
/** A frame: the varint length, then the message. */
const frame = (...fields: number[][]) => {
  const body = fields.flat();
  return Uint8Array.from([...varint(body.length), ...body]);
};

describe('an identify frame without its signed peer record', () => {
  const addrs = field(2, [4, 127, 0, 0, 1]);
  const protocols = field(3, [...Buffer.from('/ipfs/ping/1.0.0')]);
  const record = field(8, new Array(120).fill(9));

  it('drops field 8 and keeps every other field, in order, with the length prefix redone', () => {
    const out = withoutSignedRecord(frame(addrs, record, protocols, int(9, 3)));
    expect(out).toEqual(frame(addrs, protocols, int(9, 3)));
  });

  it('writes the length in as many bytes as the message needs', () => {
    const big = field(3, new Array(200).fill(65));
    expect(big).toHaveLength(203);
    expect(withoutSignedRecord(frame(big, record))).toEqual(
      Uint8Array.from([(203 & 0x7f) | 0x80, 203 >> 7, ...big]),
    );
    // 129 bytes with the record, a two-byte length; 7 without it, one byte.
    const small = frame(addrs, record);
    expect(small[0]).toBeGreaterThan(0x7f);
    expect(withoutSignedRecord(small)).toEqual(Uint8Array.from([addrs.length, ...addrs]));
  });

  it('leaves alone a frame without a record, a cut one, or more than one frame', () => {
    expect(withoutSignedRecord(frame(addrs, protocols))).toBeUndefined();
    const whole = frame(addrs, record);
    expect(withoutSignedRecord(whole.subarray(0, whole.length - 1))).toBeUndefined();
    expect(withoutSignedRecord(Uint8Array.from([...whole, ...whole]))).toBeUndefined();
    // A field of an unknown wire type (here 7): not a message this reads.
    expect(withoutSignedRecord(frame([(4 << 3) | 7, 1], record))).toBeUndefined();
  });
});

describe('identify between hosts, with and without signed peer records', () => {
  const hostOf = memoryHosts('ui');
  const make = (meter: WireMeter, peerRecords?: boolean) =>
    hostOf({ metrics: meter.component, ...(peerRecords === undefined ? {} : { peerRecords }) });
  /** identify's messages and bytes, once both ends of every connection have answered. */
  const identifyTraffic = async (meter: WireMeter, messages: number) => {
    await expect.poll(() => meter.snapshot()[IDENTIFY_PROTOCOL]?.messages ?? 0).toBe(messages);
    return meter.snapshot()[IDENTIFY_PROTOCOL] ?? { messages: 0, bytes: 0 };
  };

  it('set to send none, sends none: peers learn the addresses and protocols all the same', async () => {
    const meter = new WireMeter();
    const [a, b, c] = await Promise.all([
      make(meter, false),
      make(meter, false),
      make(meter, false),
    ]);
    if (a === undefined || b === undefined || c === undefined) throw new Error();
    const learnt = await connect(b, a);
    expect(learnt.signedPeerRecord).toBeUndefined();
    const peer = await b.peerStore.get(a.peerId);
    expect(peer.peerRecordEnvelope).toBeUndefined();
    expect(peer.addresses.map((x) => x.multiaddr.toString())).toEqual(
      a.getMultiaddrs().map((m) => m.decapsulateCode(421).toString()),
    );
    expect(peer.protocols).toContain('/cidx/profiles/kad/1.0.0');
    // The agent a peer announces is cidx's, with its version (not libp2p's and the runtime's).
    expect(new TextDecoder().decode(peer.metadata.get('AgentVersion'))).toBe(
      `cidx/${CIDX_VERSION}`,
    );
    // More connections to the same host: each identify is answered once, at each end (libp2p
    // would run a protocol's handler once more per stream on the same middleware list).
    await connect(b, a);
    await connect(c, a);
    await connect(a, c);
    await identifyTraffic(meter, 2 * 4);
  });

  it('sends the record by default; without it an identify message is lighter by the record', async () => {
    const signed = new WireMeter();
    const [a, b] = await Promise.all([make(signed), make(signed)]);
    if (a === undefined || b === undefined) throw new Error();
    const learnt = await connect(b, a);
    expect(learnt.signedPeerRecord).toBeDefined();
    expect((await b.peerStore.get(a.peerId)).peerRecordEnvelope).toBeDefined();
    const withRecord = await identifyTraffic(signed, 2);

    const unsigned = new WireMeter();
    const [c, d] = await Promise.all([make(unsigned, false), make(unsigned, false)]);
    if (c === undefined || d === undefined) throw new Error();
    await connect(d, c);
    const without = await identifyTraffic(unsigned, 2);
    // The record: the peer id, the addresses, the public key and a 64-byte signature.
    expect(withRecord.bytes - without.bytes).toBeGreaterThan(2 * 150);
  });
});
