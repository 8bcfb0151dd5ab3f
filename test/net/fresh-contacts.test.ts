import { generateKeyPair } from '@libp2p/crypto/keys';
import type { PeerId } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { describe, expect, it } from 'vitest';
import { answerFreshPings, FreshContacts } from '../../src/net/fresh-contacts.ts';
import { routingTablePeers } from '../../src/net/kad-internals.ts';
import type { CidxLibp2p } from '../../src/net/libp2p.ts';
import { WireMeter } from '../../src/net/wire-meter.ts';
import { memoryHosts } from '../support/memory-hosts.ts';

const PING = '/ipfs/ping/1.0.0';
type PingTable = { pingContact: (c: { peerId: PeerId }) => Promise<boolean> };
const peer = async () => peerIdFromPrivateKey(await generateKeyPair('Ed25519'));

/** A routing table's two methods as kad-dht has them: the real ping is counted. */
function fakeTable() {
  const rt = {
    offered: [] as PeerId[],
    pinged: [] as PeerId[],
    events: [] as PeerId[],
    queueRoutingTableUpdate(p: PeerId) {
      rt.offered.push(p);
    },
    async pingContact(c: { peerId: PeerId }) {
      rt.pinged.push(c.peerId);
      return false;
    },
    safeDispatchEvent(_type: string, init: { detail: PeerId }) {
      rt.events.push(init.detail);
      return true;
    },
  };
  return rt;
}

describe('routing-table pings of peers that have just answered', () => {
  it('are answered from memory within the window, and sent after it or without evidence', async () => {
    let now = 0;
    const fresh = new FreshContacts(10_000, () => now);
    const rt = fakeTable();
    const [a, b, named] = [await peer(), await peer(), await peer()];
    const connected = (p: PeerId) => !p.equals(named);
    expect(answerFreshPings({ routingTable: rt }, fresh, connected)).toBe(true);
    rt.queueRoutingTableUpdate(a);
    // Only named by another peer, not connected: offered, but no evidence — the real ping.
    rt.queueRoutingTableUpdate(named);
    expect(rt.offered).toEqual([a, named]);
    expect(fresh.namedOnly).toBe(1);
    expect(await rt.pingContact({ peerId: named })).toBe(false);
    now = 10_000;
    expect(await rt.pingContact({ peerId: a })).toBe(true);
    expect(rt.events).toEqual([a]);
    // Never offered: the real ping (which here fails).
    expect(await rt.pingContact({ peerId: b })).toBe(false);
    // Evidence older than the window: the real ping.
    now = 10_001;
    expect(await rt.pingContact({ peerId: a })).toBe(false);
    expect(rt.pinged).toEqual([named, b, a]);
    expect(fresh.pings).toEqual({ skipped: 1, sent: 3 });
  });

  it('with a window of 0, or without the internals, leave the table as it is', async () => {
    const rt = fakeTable();
    const ping = rt.pingContact;
    const any = () => true;
    expect(answerFreshPings({ routingTable: rt }, new FreshContacts(0), any)).toBe(false);
    expect(rt.pingContact).toBe(ping);
    expect(answerFreshPings({}, new FreshContacts(10_000), any)).toBe(false);
    expect(
      answerFreshPings({ routingTable: { pingContact: ping } }, new FreshContacts(1), any),
    ).toBe(false);
  });

  it('remember at most 4096 peers, forgetting the oldest evidence first', async () => {
    const fresh = new FreshContacts(10_000, () => 0);
    const first = await peer();
    const second = await peer();
    fresh.heard(first);
    fresh.heard(second);
    fresh.heard(first); // heard again: now the newest
    for (let i = 0; i < 4095; i++) fresh.heard(await peer());
    expect(fresh.isFresh(second)).toBe(false);
    expect(fresh.isFresh(first)).toBe(true);
    fresh.heard(await peer());
    expect(fresh.isFresh(first)).toBe(false);
  });
});

describe('two real nodes meeting', () => {
  const host = memoryHosts('fresh');

  /** Connects two nodes; resolves when each holds the other in both routing tables. */
  async function meet(freshContactMs: number) {
    const meter = new WireMeter();
    const make = () => host({ metrics: meter.component, freshContactMs });
    const [a, b] = [await make(), await make()];
    const tagged: string[] = [];
    const rt = (a.services.profiles as unknown as { routingTable: EventTarget }).routingTable;
    rt.addEventListener('peer:ping', (e) => tagged.push(String((e as CustomEvent).detail)));
    const holds = (h: CidxLibp2p, p: PeerId) =>
      [h.services.profiles, h.services.addresses].every((d) =>
        (routingTablePeers(d) ?? []).includes(p.toString()),
      );
    const both = new Promise<void>((resolve) => {
      const check = () => {
        if (holds(a, b.peerId) && holds(b, a.peerId)) resolve();
        else setTimeout(check, 10);
      };
      check();
    });
    await a.dial(b.getMultiaddrs()[0] as never);
    await both;
    return { meter, a, b, tagged };
  }

  it('add each other without a ping: identify has just shown the other alive', async () => {
    const { meter, b, tagged } = await meet(10_000);
    expect(meter.snapshot()[PING]).toBeUndefined();
    // kad-dht's closest-peer tagger still hears of the peer, as from a real ping.
    expect(tagged).toContain(b.peerId.toString());
  });

  it('ping a peer again once every connection to it has closed', async () => {
    const { meter, a, b } = await meet(10_000);
    const gone = new Promise((resolve) =>
      a.addEventListener('peer:disconnect', resolve, { once: true }),
    );
    await a.hangUp(b.peerId);
    await gone;
    // Heard a moment ago, but it may have left since: kad-dht's ping goes to the network.
    const rt = (a.services.profiles as unknown as { routingTable: PingTable }).routingTable;
    expect(await rt.pingContact({ peerId: b.peerId })).toBe(true);
    expect(meter.snapshot()[PING]?.streams).toBe(1);
  });

  it('ping each other first when the window is 0, as kad-dht does alone', async () => {
    const { meter } = await meet(0);
    // A ping of each DHT's table on each side: a request and its answer each.
    expect(meter.snapshot()[PING]?.streams).toBeGreaterThanOrEqual(2);
  });
});

describe('a peer only named by another', () => {
  const host = memoryHosts('named');
  const make = (freshContactMs: number) => host({ freshContactMs });
  const holds = (h: CidxLibp2p, p: PeerId) =>
    (routingTablePeers(h.services.profiles) ?? []).includes(p.toString());
  /** Resolves once `h`'s ProfilesDHT table holds `p`. */
  const until = (h: CidxLibp2p, p: PeerId) =>
    new Promise<void>((resolve) => {
      const rt = (h.services.profiles as unknown as { routingTable: EventTarget }).routingTable;
      const check = () => {
        if (!holds(h, p)) return;
        rt.removeEventListener('peer:add', check);
        resolve();
      };
      rt.addEventListener('peer:add', check);
      check();
    });

  /**
   * b holds gone in its table, then gone stops; a, connected to b alone, looks up gone's id,
   * and b's answer names gone. Returns a's table after the lookup and kad-dht's queued work.
   */
  async function lookUpTheGone(freshContactMs: number) {
    const [a, b, gone] = [
      await make(freshContactMs),
      await make(freshContactMs),
      await make(freshContactMs),
    ];
    const known = until(b, gone.peerId);
    await b.dial(gone.getMultiaddrs()[0] as never);
    await known;
    await gone.stop();
    expect(holds(b, gone.peerId)).toBe(true); // b still names it
    const metB = until(a, b.peerId);
    await a.dial(b.getMultiaddrs()[0] as never);
    await metB;
    const events: string[] = [];
    for await (const ev of a.services.profiles.getClosestPeers(gone.peerId.toMultihash().bytes))
      if (ev.name === 'PEER_RESPONSE') events.push(...ev.closer.map((p) => p.id.toString()));
    const rt = (
      a.services.profiles as unknown as {
        routingTable: { routingTableUpdateQueue: { onIdle(): Promise<void> } } & Record<
          string,
          { onIdle(): Promise<void> }
        >;
      }
    ).routingTable;
    await rt.routingTableUpdateQueue.onIdle();
    await rt.pingNewContactQueue?.onIdle();
    return { named: events.includes(gone.peerId.toString()), added: holds(a, gone.peerId) };
  }

  it('is pinged before it enters the routing table: it may be gone, and here it is', async () => {
    const r = await lookUpTheGone(10_000);
    expect(r.named).toBe(true);
    expect(r.added).toBe(false);
  });

  it('is pinged by kad-dht alone (window 0) and not added once the ping fails', async () => {
    const r = await lookUpTheGone(0);
    expect(r.named).toBe(true);
    expect(r.added).toBe(false);
  });
});
