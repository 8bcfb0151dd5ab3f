import type { KadDHT } from '@libp2p/kad-dht';
import { describe, expect, it } from 'vitest';
import {
  kadInternalsMissing,
  routingTablePeers,
  routingTableSize,
  SIMULATION_QUERY_INTERVAL_MS,
  SIMULATION_TAGGING_MS,
  slowClosestPeerTagging,
  slowOldContactPings,
  slowRoutingTableRefresh,
} from '../../src/net/kad-internals.ts';
import { samePrefix, splitOwnPath } from '../../src/net/own-path-buckets.ts';
import { memoryHosts } from '../support/memory-hosts.ts';

/**
 * cidx reaches six things kad-dht keeps inside: its routing table's size, its closest-peer
 * tagger's interval and round, its routing table's pings, its table refresh's interval and the
 * age after which it pings old contacts again. An upgrade that moves any of them must fail
 * here, not slow nodes down silently.
 */
describe("kad-dht's insides", () => {
  const make = memoryHosts('kad-internals');
  const host = (simulation: boolean) => make({ simulation }, false);
  const tagger = (dht: KadDHT) =>
    (dht as unknown as { routingTable: { closestPeerTagger: { refreshInterval: unknown } } })
      .routingTable.closestPeerTagger.refreshInterval;
  const refresh = (dht: KadDHT) =>
    (dht as unknown as { routingTableRefresh: { refreshInterval: unknown } }).routingTableRefresh
      .refreshInterval;
  const lastPing = (dht: KadDHT) =>
    (dht as unknown as { routingTable: { kb: { lastPingThreshold: unknown } } }).routingTable.kb
      .lastPingThreshold;

  it('are where kad-dht 16 keeps them, on a real instance, before and after start', async () => {
    const h = await host(true);
    const dhts = { profiles: h.services.profiles, addresses: h.services.addresses };
    expect(routingTableSize(dhts.profiles)).toBe(0);
    expect(routingTablePeers(dhts.profiles)).toEqual([]);
    expect(tagger(dhts.profiles)).toBe(SIMULATION_TAGGING_MS);
    expect(tagger(dhts.addresses)).toBe(SIMULATION_TAGGING_MS);
    expect(refresh(dhts.profiles)).toBe(SIMULATION_QUERY_INTERVAL_MS);
    expect(refresh(dhts.addresses)).toBe(SIMULATION_QUERY_INTERVAL_MS);
    expect(lastPing(dhts.profiles)).toBe(SIMULATION_QUERY_INTERVAL_MS);
    expect(lastPing(dhts.addresses)).toBe(SIMULATION_QUERY_INTERVAL_MS);
    expect(kadInternalsMissing(dhts, { simulation: true })).toEqual([]);
    await h.start();
    expect(routingTableSize(dhts.addresses)).toBe(0);
    // Read when a full bucket is offered a peer, so start must not put it back.
    expect(lastPing(dhts.profiles)).toBe(SIMULATION_QUERY_INTERVAL_MS);
    expect(kadInternalsMissing(dhts, { simulation: true })).toEqual([]);
  });

  it('a node that is not simulated keeps kad-dht’s own tagging, refresh and ping ages', async () => {
    const h = await host(false);
    const interval = tagger(h.services.profiles);
    expect(typeof interval).toBe('number');
    expect(interval).not.toBe(SIMULATION_TAGGING_MS);
    // kad-dht's TABLE_REFRESH_INTERVAL, not exported.
    expect(refresh(h.services.profiles)).toBe(5 * 60_000);
    expect(refresh(h.services.addresses)).toBe(5 * 60_000);
    // kad-dht's LAST_PING_THRESHOLD.
    expect(lastPing(h.services.profiles)).toBe(10 * 60_000);
    expect(kadInternalsMissing({ profiles: h.services.profiles }, { simulation: false })).toEqual(
      [],
    );
  });

  it('names each part that is missing, and leaves a DHT without them alone', () => {
    const bare = {} as KadDHT;
    expect(routingTableSize(bare)).toBeUndefined();
    expect(slowClosestPeerTagging(bare)).toBe(false);
    expect(slowRoutingTableRefresh(bare)).toBe(false);
    expect(slowOldContactPings(bare)).toBe(false);
    const missing = kadInternalsMissing({ profiles: bare }, { simulation: true });
    expect(missing).toHaveLength(6);
    expect(missing[0]).toMatch(/profiles DHT: .*routingTable\.size/);
    expect(missing[1]).toMatch(/profiles DHT: .*routing-table pings/);
    expect(missing[2]).toMatch(/profiles DHT: .*tagging round/);
    expect(missing[3]).toMatch(/profiles DHT: .*tagger was not found/);
    expect(missing[4]).toMatch(/profiles DHT: .*routing-table refresh was not found/);
    expect(missing[5]).toMatch(/profiles DHT: .*pinging old contacts was not found/);
    expect(kadInternalsMissing({ profiles: bare }, { simulation: false })).toHaveLength(3);
    // The k-bucket tree's own-path splits are looked for only when asked for.
    expect(splitOwnPath(bare, 16)).toBe(false);
    const asked = kadInternalsMissing({ profiles: bare }, { simulation: false, ownPathDepth: 16 });
    expect(asked).toHaveLength(4);
    expect(asked[3]).toMatch(/profiles DHT: .*k-bucket tree was not found/);
  });

  it('has the k-bucket tree that own-path splits wrap, on a real instance', async () => {
    const h = await host(false);
    const dhts = { profiles: h.services.profiles, addresses: h.services.addresses };
    expect(kadInternalsMissing(dhts, { simulation: false, ownPathDepth: 16 })).toEqual([]);
  });
});

describe('samePrefix', () => {
  const a = Uint8Array.of(0b1010_1100, 0xff);
  it('compares whole bytes and the bits of a partial one', () => {
    expect(samePrefix(a, Uint8Array.of(0b1010_1100, 0x00), 8)).toBe(true);
    expect(samePrefix(a, Uint8Array.of(0b1010_1100, 0x00), 9)).toBe(false);
    expect(samePrefix(a, Uint8Array.of(0b1010_0000, 0xff), 4)).toBe(true);
    expect(samePrefix(a, Uint8Array.of(0b1010_0000, 0xff), 5)).toBe(false);
    expect(samePrefix(a, Uint8Array.of(0b0010_1100, 0xff), 0)).toBe(true);
    expect(samePrefix(a, Uint8Array.of(0b0010_1100, 0xff), 1)).toBe(false);
  });
});
