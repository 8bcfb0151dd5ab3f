import { randomBytes } from 'node:crypto';
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { PeerId, PrivateKey } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { afterEach, describe, expect, it } from 'vitest';
import { communityAddressKey } from '../../src/keys/rehash.ts';
import { sortByDistance } from '../../src/net/closest.ts';
import { routingTablePeers } from '../../src/net/kad-internals.ts';
import type { Limits } from '../../src/node/config.ts';
import { CidxNode } from '../../src/node/node.ts';
import { TEST_TIMING, variedProfiles, waitFor } from '../support/swarm.ts';

const nodes: CidxNode[] = [];
afterEach(async () => {
  await Promise.allSettled(nodes.splice(0).map((n) => n.stop()));
});

/** Requests a node served, by `type:outcome`. */
type Served = Map<string, number>;

/** Pairs of peers (ids joined by a space, both orders) that refuse each other's connections. */
const refused = new Set<string>();
/** Pairs (dialler, then peer) where the first never dials the second, but takes its dials. */
const noDial = new Set<string>();

async function node(
  key: PrivateKey,
  o: { bootstrap?: string[]; limits?: Partial<Limits> } = {},
): Promise<{ n: CidxNode; served: Served }> {
  const self = peerIdFromPrivateKey(key).toString();
  const refuses = async (p: PeerId) => refused.has(`${self} ${p}`);
  const dials = async (p: PeerId) => (await refuses(p)) || noDial.has(`${self} ${p}`);
  const served: Served = new Map();
  const n = await CidxNode.create({
    transport: 'memory',
    listen: [`/memory/route-${randomBytes(4).toString('hex')}`],
    encryption: 'plaintext',
    privateKey: key,
    bootstrap: o.bootstrap ?? [],
    // One replica per key: which node holds a key is only which is closest to it.
    swarm: { replicas: 1 },
    timing: TEST_TIMING,
    limits: { routeHops: 4, ...o.limits },
    connectionGater: { denyDialPeer: dials, denyInboundEncryptedConnection: refuses },
    onServed: (t, outcome) =>
      served.set(`${t}:${outcome}`, (served.get(`${t}:${outcome}`) ?? 0) + 1),
  });
  nodes.push(n);
  await n.start();
  return { n, served };
}

const tableSize = (n: CidxNode) =>
  Math.min(
    routingTablePeers(n.libp2p.services.profiles)?.length ?? 0,
    routingTablePeers(n.libp2p.services.addresses)?.length ?? 0,
  );

/**
 * s — f — r, where s and r refuse each other: what r holds reaches s only through f. Two nodes
 * start, and one creates a community: r is the one closer to the community's AddressesDHT key,
 * which, with one replica, holds its entry alone. s, made farther from that key than both,
 * then joins through f. Each routing table holds only the peers its node is connected to: a
 * peer only named by another is taken after it answers a ping, which s and r cannot exchange.
 */
async function line(fLimits: Partial<Limits> = {}) {
  const k = [await generateKeyPair('Ed25519'), await generateKeyPair('Ed25519')];
  const ids = k.map((x) => peerIdFromPrivateKey(x));
  const [p] = variedProfiles(1, 40, 5);
  const profile = p as NonNullable<typeof p>;
  // Which node is r is known only once the community exists: `fLimits` go to both (r answers
  // what it holds whatever its own limits).
  const a = await node(k[0] as PrivateKey, { limits: fLimits });
  const b = await node(k[1] as PrivateKey, { bootstrap: a.n.addrs, limits: fLimits });
  await waitFor(() => tableSize(a.n) === 1 && tableSize(b.n) === 1, 60_000, 'tables of two');
  const { id } = await a.n.create(profile);
  const key = communityAddressKey(id);
  const [r, f] = sortByDistance(ids, key)[0]?.equals(ids[0]) ? [a, b] : [b, a];
  let sKey: PrivateKey;
  do sKey = await generateKeyPair('Ed25519');
  while (
    !sortByDistance([...ids, peerIdFromPrivateKey(sKey)], key)
      .at(-1)
      ?.equals(peerIdFromPrivateKey(sKey))
  );
  const sId = peerIdFromPrivateKey(sKey).toString();
  const rId = r.n.libp2p.peerId.toString();
  refused.add(`${sId} ${rId}`).add(`${rId} ${sId}`);
  const s = await node(sKey, { bootstrap: f.n.addrs });
  await waitFor(
    () => tableSize(s.n) === 1 && tableSize(f.n) === 2 && tableSize(r.n) === 1,
    60_000,
    'tables of the line',
  );
  return { s, f, r, id, profile, creator: a.n };
}

describe('reads routed over open connections', () => {
  it('reach what only a peer this node cannot connect to holds, handed on by the peer between', async () => {
    const { s, r, id, profile, creator } = await line();
    const [best] = await s.n.search(profile);
    expect(best?.id).toBe(id);
    // The community's entry, held by r alone, came back through f.
    expect(best?.contacts).toEqual(creator.addrs);
    expect(r.served.get('route:ok') ?? 0).toBeGreaterThan(0);
    expect(s.n.libp2p.getConnections(r.n.libp2p.peerId)).toEqual([]);
    expect(s.n.traffic()['out:route']?.messages ?? 0).toBeGreaterThan(0);
  });

  // f's table keeps r once their connection is gone; r never dials f again.
  const apart = async (f: CidxNode, r: CidxNode) => {
    noDial.add(`${r.libp2p.peerId} ${f.libp2p.peerId}`);
    await f.libp2p.hangUp(r.libp2p.peerId);
    const inTables = () =>
      (['profiles', 'addresses'] as const).every((d) =>
        (routingTablePeers(f.libp2p.services[d]) ?? []).includes(r.libp2p.peerId.toString()),
      );
    await waitFor(
      () => f.libp2p.getConnections(r.libp2p.peerId).length === 0 && inTables(),
      60_000,
      'f apart from r',
    );
  };

  it("go on from a peer with no closer peer connected to its table's closer peers, dialled", async () => {
    const { s, f, r, id, profile, creator } = await line();
    await apart(f.n, r.n);
    const before = r.served.get('route:ok') ?? 0;
    const [best] = await s.n.search(profile);
    expect(best?.id).toBe(id);
    expect(best?.contacts).toEqual(creator.addrs);
    // r answered routes again, through the connection f opened for them.
    expect(r.served.get('route:ok') ?? 0).toBeGreaterThan(before);
    expect(f.n.libp2p.getConnections(r.n.libp2p.peerId).length).toBeGreaterThan(0);
    expect(s.n.libp2p.getConnections(r.n.libp2p.peerId)).toEqual([]);
  });

  it('a peer that dials none of its table ends such a route unrouted', async () => {
    const { s, f, r, id, profile } = await line({ routeDials: 0 });
    await apart(f.n, r.n);
    const before = r.served.get('route:ok') ?? 0;
    const [best] = await s.n.search(profile);
    expect(best?.id).toBe(id);
    expect(r.served.get('route:ok') ?? 0).toBe(before);
    expect(f.n.libp2p.getConnections(r.n.libp2p.peerId)).toEqual([]);
    expect(f.served.get('route:ok') ?? 0).toBeGreaterThan(0);
  });

  it('a peer that routes nothing ends the route, and the key is looked up instead', async () => {
    const { s, f, r, id, profile } = await line({ routeHops: 0 });
    const [best] = await s.n.search(profile);
    // Found by lookups, at f, which holds some of its keys. Its entry is r's, out of s's
    // reach, and f's if r handed it on (r does when the owner is f: it never hands an entry
    // back to its sender): the contacts found are what f holds.
    expect(best?.id).toBe(id);
    expect(best?.contacts).toEqual(f.n.table.contacts(id, Date.now()).contacts?.addrs ?? []);
    expect(f.served.get('route:ok') ?? 0).toBeGreaterThan(0);
    expect(r.served.get('route:ok') ?? 0).toBe(0);
    expect(s.n.traffic()['out:contacts-get']?.messages ?? 0).toBeGreaterThan(0);
  });
});
