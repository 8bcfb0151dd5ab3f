/**
 * The contacts of a node that cannot be dialled (TCP on 127.0.0.1, `private`): they are its
 * relay addresses, never its own private-range ones; they follow its relays as they change; and
 * the node, in client mode, refuses to store what others send it.
 */
import { multiaddr } from '@multiformats/multiaddr';
import { afterEach, describe, expect, it } from 'vitest';
import { attributeKey } from '../../src/keys/rehash.ts';
import { IndexClient, RemoteError } from '../../src/net/client.ts';
import { blobToWire, type Request, WIRE_VERSION } from '../../src/net/codec.ts';
import { dialableAddrs } from '../../src/net/contact-addrs.ts';
import { Meter } from '../../src/net/meter.ts';
import type { ReachabilityMode } from '../../src/net/reachability.ts';
import type { ContactsChange } from '../../src/node/contacts-refresh.ts';
import { CidxNode } from '../../src/node/node.ts';
import { descriptor, owner } from '../support/records.ts';
import { waitFor } from '../support/swarm.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.allSettled(cleanup.splice(0).map((f) => f()));
});

const TIMING = { requestTimeoutMs: 5_000, lookupTimeoutMs: 10_000, contactsSettleMs: 300 };

async function tcpNode(
  mode: ReachabilityMode,
  bootstrap: string[] = [],
  served?: (type: string, outcome: string) => void,
): Promise<CidxNode> {
  const n = await CidxNode.create({
    transport: 'tcp',
    listen: ['/ip4/127.0.0.1/tcp/0'],
    reachability: mode,
    bootstrap,
    // One slot: the node holds one relay at a time, so losing it moves it to another.
    relay: { reservations: 1 },
    timing: TIMING,
    ...(served ? { onServed: served } : {}),
  });
  cleanup.push(() => n.stop());
  await n.start();
  return n;
}

const relayOf = (addr: string) => addr.split('/p2p-circuit')[0]?.split('/p2p/')[1];

describe('dialableAddrs', () => {
  const id = '12D3KooWRnBKUEkAEpsoCoEiuhxKBJ5j2Bdop6PGxFMvd4PwoevM';
  const relay = '12D3KooWBnext1xGSMmeUDXx5Ut7kq3WMXXXBeLMMNj1hKR5TRhd';
  const addrs = [
    `/ip4/127.0.0.1/tcp/4001/p2p/${id}`,
    `/ip4/192.168.1.2/tcp/4001/p2p/${id}`,
    `/ip4/11.0.0.7/tcp/4001/p2p/${id}`,
    `/ip4/198.18.0.2/tcp/4001/p2p/${relay}/p2p-circuit/p2p/${id}`,
    `/dns4/node.example/tcp/4001/p2p/${id}`,
  ];

  it('are all the addresses of a node that serves', () => {
    expect(dialableAddrs(addrs, 'server')).toEqual(addrs);
  });

  it('are relay, public and DNS addresses of a node in client mode, never private-range ones', () => {
    expect(dialableAddrs(addrs, 'client')).toEqual(addrs.slice(2));
    expect(dialableAddrs(addrs.slice(0, 2), 'client')).toEqual([]);
  });
});

describe('a node behind a NAT', () => {
  it('lists its relay addresses as contacts and republishes them when its relay changes', async () => {
    const r1 = await tcpNode('public');
    const r2 = await tcpNode('public', r1.addrs);
    const c = await tcpNode('public', r1.addrs);
    const p = await tcpNode('private', [...r1.addrs, ...r2.addrs]);
    const reach = p.libp2p.services.reachability;
    await waitFor(() => reach.relayAddrs.length > 0, 15_000, 'a reservation');
    const first = reach.relayAddrs;
    // It has a loopback address of its own, which nobody elsewhere could dial.
    expect(p.addrs.some((a) => a.startsWith('/ip4/127.0.0.1/') && !a.includes('p2p-circuit'))).toBe(
      true,
    );

    const followed = await p.create({ weights: { canto: 1.4, Verdi: 0.9, Rigoletto: 0.62 } });
    const given = [`/ip4/11.0.0.9/tcp/4001/p2p/${p.peerId}`];
    const fixed = await p.create({ weights: { opera: 1, Verdi: 0.5 } }, { contacts: given });
    expect((await c.get(followed.id)).contacts.sort()).toEqual([...first].sort());
    expect((await c.get(fixed.id)).contacts).toEqual(given);

    // The relay it holds a slot at goes away: it reserves at another one, and the community
    // whose contacts were defaulted gets a new version listing the new relay address.
    const changes: ContactsChange[] = [];
    p.on('contacts', (ch) => changes.push(ch));
    const held = relayOf(first[0] as string);
    const gone = [r1, r2, c].find((n) => n.peerId.toString() === held) as CidxNode;
    const live = new Set([r1, r2, c].filter((n) => n !== gone).map((n) => n.peerId.toString()));
    const throughLive = (contacts: string[]) =>
      contacts.length > 0 && contacts.every((a) => live.has(relayOf(a) ?? ''));
    await gone.stop();
    await waitFor(
      () => changes.some((ch) => ch.id === followed.id && throughLive(ch.contacts)),
      60_000,
      'contacts through another relay',
    );
    expect(changes.map((ch) => ch.id)).not.toContain(fixed.id);
    const reader = gone === c ? r1 : c;
    const now = await reader.get(followed.id);
    expect(now.version).toBeGreaterThanOrEqual(2);
    expect(throughLive(now.contacts)).toBe(true);
    expect(await reader.get(fixed.id)).toMatchObject({ version: 1, contacts: given });
    // Nothing left to republish: the contacts match the addresses.
    expect(await p.refreshContacts()).toEqual([]);
  }, 120_000);

  it('refuses stores and updates while its DHTs run in client mode, and counts them', async () => {
    const r = await tcpNode('public');
    const served: [string, string][] = [];
    const p = await tcpNode('private', r.addrs, (t, o) => served.push([t, o]));
    await waitFor(() => p.libp2p.services.reachability.relayAddrs.length > 0, 15_000, 'a relay');
    expect(p.libp2p.services.profiles.getMode()).toBe('client');

    const o = await owner();
    const d = await descriptor(o, 1, { canto: 1, Verdi: 0.5 });
    const client = new IndexClient(
      r.libp2p,
      { timeoutMs: 5_000, maxFrameBytes: 1 << 20 },
      new Meter(),
    );
    const to = multiaddr(p.libp2p.services.reachability.relayAddrs[0] as string);
    for (const t of ['store', 'update'] as const) {
      const req: Request = {
        v: WIRE_VERSION,
        swarm: p.swarm.digest,
        t,
        key: attributeKey('canto'),
        rec: blobToWire(d.blob),
        s: 0,
      };
      const err = await client.request(to, req).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RemoteError);
      expect((err as RemoteError).code).toBe('not-serving');
    }
    // Reads are answered as ever.
    const params = await client.request(to, {
      v: WIRE_VERSION,
      swarm: p.swarm.digest,
      t: 'params',
    });
    expect(params.params).toEqual(p.swarm.params);
    expect(served.filter(([, outcome]) => outcome === 'not-serving').map(([t]) => t)).toEqual([
      'store',
      'update',
    ]);
    expect(p.table.stats().descriptors).toBe(0);
  }, 60_000);
});
