/**
 * kad-dht's routing table is a trie that stops splitting at `prefixLength` bits and then keeps
 * the first k peers of a bucket. Peers whose Kademlia ids share a long prefix are a key's
 * closest: at kad-dht's depth a table holds k of them and the later ones are left out; a
 * deeper table (`dht.prefixLength`, src/settings/dht.ts) holds them all.
 */
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { describe, expect, it } from 'vitest';
import { kadIdOfPeer } from '../../src/net/closest.ts';
import { routingTablePeers } from '../../src/net/kad-internals.ts';
import type { CidxLibp2p } from '../../src/net/libp2p.ts';
import { samePrefix } from '../../src/net/own-path-buckets.ts';
import { SETTINGS } from '../../src/settings/table.ts';
import { memoryHosts } from '../support/memory-hosts.ts';
import { waitFor } from '../support/swarm.ts';

/** kad-dht's own trie depth. */
const KAD_DHT_PREFIX_LENGTH = 6;
/** A depth that tells these peers apart. */
const DEEP = 16;
/** cidx's k on both DHTs (src/net/libp2p.ts). */
const K = 4;

/** The bits two ids share before they differ. */
function commonPrefix(a: Uint8Array, b: Uint8Array): number {
  let bits = 0;
  while (bits < a.length * 8 && samePrefix(a, b, bits + 1)) bits++;
  return bits;
}

/**
 * Keys of peers whose ids share with the hub's exactly `c` bits, one key per entry of `shares`
 * (the last entry: at least that many).
 */
async function keysAround(hub: PrivateKey, shares: number[]): Promise<PrivateKey[]> {
  const hubId = kadIdOfPeer(peerIdFromPrivateKey(hub));
  const wanted = [...shares];
  const last = wanted.length - 1;
  const out: PrivateKey[] = [];
  while (out.length < shares.length) {
    const key = await generateKeyPair('Ed25519');
    const c = commonPrefix(kadIdOfPeer(peerIdFromPrivateKey(key)), hubId);
    const i = wanted.findIndex((w, j) => w === c || (j === last && w !== -1 && c >= w));
    if (i === -1) continue;
    wanted[i] = -1;
    out.push(key);
  }
  return out;
}

/** Keys whose peers' Kademlia ids all begin with the `bits` bits of `prefix` (at most 8). */
async function keysSharingPrefix(count: number, bits: number, prefix = 0): Promise<PrivateKey[]> {
  const out: PrivateKey[] = [];
  while (out.length < count) {
    const key = await generateKeyPair('Ed25519');
    const id = kadIdOfPeer(peerIdFromPrivateKey(key));
    if ((id[0] as number) >> (8 - bits) === prefix) out.push(key);
  }
  return out;
}

const DHTS = ['profiles', 'addresses'] as const;

interface TableInternals {
  routingTableUpdateQueue: { size: number; running: number };
  queueRoutingTableUpdate(peer: { toString(): string }, ...rest: unknown[]): void;
}

function tableOf(hub: CidxLibp2p, name: (typeof DHTS)[number]): TableInternals {
  return (hub.services[name] as unknown as { routingTable: TableInternals }).routingTable;
}

/** Records the peers each DHT of `hub` is offered for its routing table (kad-dht's one way in). */
function recordOffers(hub: CidxLibp2p): Record<(typeof DHTS)[number], Set<string>> {
  const offers = { profiles: new Set<string>(), addresses: new Set<string>() };
  for (const name of DHTS) {
    const table = tableOf(hub, name);
    const original = table.queueRoutingTableUpdate.bind(table);
    table.queueRoutingTableUpdate = (peer, ...rest) => {
      offers[name].add(peer.toString());
      original(peer, ...rest);
    };
  }
  return offers;
}

describe('routing-table depth', () => {
  const make = memoryHosts('table-depth');

  /**
   * A hub, `others` peers that share its first `bits` id bits, spread over the distances
   * Kademlia keeps apart (3 share exactly `bits`, 3 one bit more, the rest more still), or,
   * `apart`, that share their first `bits` bits with each other and not with the hub; the hub
   * dials them all.
   */
  async function neighbourhood(
    others: number,
    bits: number,
    dhtOptions?: { prefixLength?: number; ownPathDepth?: number },
    apart = false,
  ) {
    const hubKey = (await keysSharingPrefix(1, bits, apart ? 1 : 0))[0] as PrivateKey;
    const shares = Array.from({ length: others }, (_, i) => bits + Math.min(2, Math.floor(i / 3)));
    const keys = apart ? await keysSharingPrefix(others, bits) : await keysAround(hubKey, shares);
    const dht = dhtOptions === undefined ? {} : { dht: dhtOptions };
    const hub = await make({ privateKey: hubKey, ...dht });
    const offers = recordOffers(hub);
    const peers = await Promise.all(keys.map((privateKey) => make({ privateKey, ...dht })));
    for (const p of peers) await hub.dial(p.getMultiaddrs());
    const ids = peers.map((p) => p.peerId.toString());
    // Identify offers each peer to the hub's DHTs, which add it or turn it away.
    await waitFor(
      () =>
        DHTS.every((name) => {
          const queue = tableOf(hub, name).routingTableUpdateQueue;
          return ids.every((id) => offers[name].has(id)) && queue.size === 0 && queue.running === 0;
        }),
      undefined,
      'every peer offered to both tables, and every offer dealt with',
    );
    return { hub, ids };
  }

  it(`is kad-dht's ${KAD_DHT_PREFIX_LENGTH} bits by default: of more than k peers sharing them, k are kept and the later ones are in no table`, async () => {
    expect(SETTINGS.dht.prefixLength.default).toBe(KAD_DHT_PREFIX_LENGTH);
    const { hub, ids } = await neighbourhood(K + 3, KAD_DHT_PREFIX_LENGTH);
    for (const name of DHTS) {
      const held = routingTablePeers(hub.services[name]) ?? [];
      expect(held).toHaveLength(K);
      expect(ids).toEqual(expect.arrayContaining(held));
    }
  });

  it(`at ${DEEP} bits a node holds all of them, in both tables`, async () => {
    const { hub, ids } = await neighbourhood(K + 3, KAD_DHT_PREFIX_LENGTH, {
      prefixLength: DEEP,
    });
    for (const name of DHTS)
      expect(new Set(routingTablePeers(hub.services[name]))).toEqual(new Set(ids));
  });

  it(`with the own id's path ${DEEP} bits deep, a node holds its own neighbours, k per distance`, async () => {
    const { hub, ids } = await neighbourhood(K + 3, KAD_DHT_PREFIX_LENGTH, { ownPathDepth: DEEP });
    for (const name of DHTS)
      expect(new Set(routingTablePeers(hub.services[name]))).toEqual(new Set(ids));
  });

  it('… and still k of peers near each other elsewhere in the id space', async () => {
    const { hub, ids } = await neighbourhood(
      K + 3,
      KAD_DHT_PREFIX_LENGTH,
      { ownPathDepth: DEEP },
      true,
    );
    for (const name of DHTS) {
      const held = routingTablePeers(hub.services[name]) ?? [];
      expect(held).toHaveLength(K);
      expect(ids).toEqual(expect.arrayContaining(held));
    }
  });
});
