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
import { SETTINGS } from '../../src/settings/table.ts';
import { memoryHosts } from '../support/memory-hosts.ts';
import { waitFor } from '../support/swarm.ts';

/** kad-dht's own trie depth. */
const KAD_DHT_PREFIX_LENGTH = 6;
/** A depth that tells these peers apart. */
const DEEP = 16;
/** cidx's k on both DHTs (src/net/libp2p.ts). */
const K = 4;

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
   * A hub and `others` peers whose ids share their first `bits` bits, with the hub's (`apart`:
   * with each other, not with the hub); the hub dials them all.
   */
  async function neighbourhood(
    others: number,
    bits: number,
    dhtOptions?: { prefixLength?: number; ownPathDepth?: number },
    apart = false,
  ) {
    const [hubKey, ...keys] = apart
      ? [...(await keysSharingPrefix(1, bits, 1)), ...(await keysSharingPrefix(others, bits))]
      : await keysSharingPrefix(others + 1, bits);
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

  it(`with the own id's path ${DEEP} bits deep, a node holds all its own neighbours`, async () => {
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
