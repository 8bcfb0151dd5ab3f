import { multiaddr } from '@multiformats/multiaddr';
import { describe, expect, it } from 'vitest';
import { simNodeAddr, simNodeIndex } from '../../sim/node-addr.ts';

describe("a simulated node's address", () => {
  it('is as long on the wire as an IPv4/TCP address, up to 99,999 nodes', () => {
    const ip4 = multiaddr('/ip4/198.51.100.23/tcp/4001').bytes.length;
    for (const i of [0, 7, 42, 999, 10_000, 99_999]) {
      expect(multiaddr(simNodeAddr(i)).bytes.length).toBe(ip4);
    }
  });

  it('names its node', () => {
    for (const i of [0, 5, 1234, 123_456]) expect(simNodeIndex(simNodeAddr(i))).toBe(i);
    expect(simNodeIndex('/memory/n5')).toBeUndefined();
    expect(simNodeIndex('/ip4/127.0.0.1/tcp/1')).toBeUndefined();
  });
});
