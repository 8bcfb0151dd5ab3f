import { generateKeyPair } from '@libp2p/crypto/keys';
import type { Connection, PeerId } from '@libp2p/interface';
import type { KadDHT } from '@libp2p/kad-dht';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { describe, expect, it } from 'vitest';
import { communityAddressKey } from '../../src/keys/rehash.ts';
import { sortByDistance } from '../../src/net/closest.ts';
import { INDEX_PROTOCOL, type RouteRequest, WIRE_VERSION } from '../../src/net/codec.ts';
import { FULL_TABLE, Router, type RouterHost, UNROUTED } from '../../src/net/route.ts';
import { ok } from '../../src/net/server.ts';
import { Libp2pNetwork } from '../../src/node/libp2p-network.ts';

const swarm = new Uint8Array(32).fill(7);
const KEY = new Uint8Array([1, 2, 3]);
const peer = async () => peerIdFromPrivateKey(await generateKeyPair('Ed25519'));

/**
 * A host of the router's interface, in memory: its connections, one DHT whose routing table
 * holds `table`, and the protocols each peer spoke.
 */
function host(
  self: PeerId,
  connected: PeerId[],
  table: PeerId[],
  plain: PeerId[] = [],
): RouterHost {
  const dht = {
    getMode: () => 'server',
    routingTable: {
      size: table.length,
      closestPeers: (_: Uint8Array, o?: { count?: number }) => table.slice(0, o?.count),
    },
  } as unknown as KadDHT;
  return {
    peerId: self,
    getConnections: () =>
      connected.map((p) => ({ remotePeer: p, status: 'open' }) as unknown as Connection),
    services: { profiles: dht, addresses: dht },
    peerStore: {
      get: async (p: PeerId) => ({
        protocols: plain.some((x) => x.equals(p)) ? ['/ipfs/kad/1.0.0'] : [INDEX_PROTOCOL],
      }),
    },
  };
}

const route = (hops: number): RouteRequest => ({
  v: WIRE_VERSION,
  swarm,
  t: 'route',
  hops,
  req: { v: WIRE_VERSION, swarm, t: 'query', key: KEY, profile: { w: [['a', 1]] }, k: 3 },
});

describe('the router', () => {
  it('hands a read to the connected peer closest to the key, only if it is closer than itself', async () => {
    const all = sortByDistance(await Promise.all([1, 2, 3, 4, 5].map(peer)), KEY);
    const [p0, p1, p2, p3, p4] = all as [PeerId, PeerId, PeerId, PeerId, PeerId];
    const answered = { v: WIRE_VERSION, ok: true } as const;
    const opts = { replicas: 1, maxHops: 4, send: async () => answered, answer: async () => ok() };
    // p2 is connected to p0, p1 and p4: p0 is the closest; skipped, p1; a peer that does not
    // speak cidx gives way to the next.
    expect(await new Router(host(p2, [p4, p1, p0], []), opts).next(KEY, () => false)).toEqual(p0);
    expect(
      await new Router(host(p2, [p4, p1, p0], []), opts).next(KEY, (p) => p.equals(p0)),
    ).toEqual(p1);
    expect(await new Router(host(p2, [p4, p1, p0], [], [p0]), opts).next(KEY, () => false)).toEqual(
      p1,
    );
    // Two connections to one peer: it is tried once, and a skipped one gives way to the next.
    expect(
      await new Router(host(p2, [p0, p4, p1, p0], []), opts).next(KEY, (p) => p.equals(p0)),
    ).toEqual(p1);
    let tried = 0;
    await new Router(host(p2, [p0, p0, p0], []), opts).next(KEY, () => {
      tried++;
      return true;
    });
    expect(tried).toBe(1);
    // Nobody connected is closer than p2 itself: the route cannot get closer.
    expect(await new Router(host(p2, [p3, p4], []), opts).next(KEY, () => false)).toBeUndefined();
  });

  it('answers where its table says it is a replica, hands on otherwise, and ends unrouted', async () => {
    const all = sortByDistance(await Promise.all([1, 2, 3, 4].map(peer)), KEY);
    const [p0, p1, p2, p3] = all as [PeerId, PeerId, PeerId, PeerId];
    const sent: { to: PeerId; hops: number }[] = [];
    const answered: PeerId[] = [];
    const router = (self: PeerId, connected: PeerId[], table: PeerId[], fails = false) =>
      new Router(host(self, connected, table), {
        replicas: 2,
        maxHops: 2,
        // Tables of three: their empty answers stand (the default wants a full bucket).
        fullTable: 3,
        send: async (to, req) => {
          sent.push({ to, hops: req.t === 'route' ? req.hops : -1 });
          if (fails) throw new Error('gone');
          return { ...ok(), by: 'someone' } as never;
        },
        answer: async (from) => {
          answered.push(from);
          return ok({ sums: [] });
        },
      });
    // p1, second closest of the four: a replica of two, whatever its connections.
    const here = await router(p1, [p0], [p0, p2, p3]).handle(p3, route(5));
    expect(here).toMatchObject({ ok: true, sums: [], by: p1.toString() });
    expect(answered).toEqual([p3]);
    // p3 is none: handed on to p1 with its own bound on hops (2), less the hop it takes.
    await router(p3, [p2, p1], [p0, p1, p2]).handle(p2, route(5));
    expect(sent.at(-1)).toEqual({ to: p1, hops: 1 });
    // No hops left, no closer peer, or the next hop failing: unrouted.
    const unrouted = { ok: true, outcome: UNROUTED };
    expect(await router(p3, [p1], [p0, p1, p2]).handle(p2, route(0))).toMatchObject(unrouted);
    expect(await router(p2, [p3], [p0, p1, p3]).handle(p3, route(3))).toMatchObject(unrouted);
    expect(await router(p3, [p1], [p0, p1, p2], true).handle(p2, route(3))).toMatchObject(unrouted);
    // A table smaller than the replicas (a node that has just joined) claims nothing.
    expect(await router(p0, [], [p1]).handle(p2, route(3))).toMatchObject(unrouted);
    // A node that routes nothing still answers what it holds, and hands nothing on.
    const none = new Router(host(p3, [p1], [p0, p1, p2]), {
      replicas: 2,
      maxHops: 0,
      send: async () => {
        throw new Error('must not send');
      },
      answer: async () => ok(),
    });
    expect(await none.handle(p2, route(3))).toMatchObject(unrouted);
  });

  it("goes on from a node with no closer peer connected to its table's closest peers, closer than itself, in turn", async () => {
    const all = sortByDistance(await Promise.all([1, 2, 3, 4, 5].map(peer)), KEY);
    const [p0, p1, p2, p3, p4] = all as [PeerId, PeerId, PeerId, PeerId, PeerId];
    const sent: { to: PeerId; hops: number }[] = [];
    // p3, connected only to p4 (farther), with p0, p1 and p2 in its table, none of them
    // connected: no replica of two.
    const router = (
      tableDials: number | undefined,
      answer: (to: PeerId) => object | Error,
      plain: PeerId[] = [],
    ) =>
      new Router(host(p3, [p4], [p0, p1, p2], plain), {
        replicas: 2,
        maxHops: 4,
        ...(tableDials === undefined ? {} : { tableDials }),
        send: async (to, req) => {
          sent.push({ to, hops: req.t === 'route' ? req.hops : -1 });
          const a = answer(to);
          if (a instanceof Error) throw a;
          return { ...ok(), ...a } as never;
        },
        answer: async () => ok(),
      });
    const byP0 = { sums: [], by: 'p0' };
    const unrouted = ok({ outcome: UNROUTED });
    // The table's closest first, one hop less; its answer stands.
    expect(await router(2, () => byP0).handle(p4, route(3))).toMatchObject(byP0);
    expect(sent.splice(0)).toEqual([{ to: p0, hops: 2 }]);
    // One that fails or ends unrouted gives way to the next, within the `replicas` closest and
    // `tableDials` tries; then the route ends unrouted.
    const failsAt =
      (...down: PeerId[]) =>
      (to: PeerId) =>
        down.some((d) => d.equals(to)) ? new Error('refused') : { sums: [], by: String(to) };
    expect(await router(2, failsAt(p0)).handle(p4, route(3))).toMatchObject({ by: String(p1) });
    expect(sent.splice(0).map((x) => x.to)).toEqual([p0, p1]);
    expect(
      await router(2, (to) => (to.equals(p0) ? { outcome: UNROUTED } : { by: String(to) })).handle(
        p4,
        route(3),
      ),
    ).toMatchObject({ by: String(p1) });
    sent.splice(0);
    expect(await router(8, failsAt(p0, p1)).handle(p4, route(3))).toEqual(unrouted);
    expect(sent.splice(0).map((x) => x.to)).toEqual([p0, p1]);
    expect(await router(1, failsAt(p0)).handle(p4, route(3))).toEqual(unrouted);
    expect(sent.splice(0).map((x) => x.to)).toEqual([p0]);
    // Its sender is not handed the read back, nor a peer that does not speak cidx.
    await router(2, () => byP0).handle(p0, route(3));
    expect(sent.splice(0).map((x) => x.to)).toEqual([p1]);
    await router(2, () => byP0, [p0]).handle(p4, route(3));
    expect(sent.splice(0).map((x) => x.to)).toEqual([p1]);
    // No hops left, or no table dials (the default): nothing sent.
    expect(await router(2, () => byP0).handle(p4, route(0))).toEqual(unrouted);
    expect(await router(0, () => byP0).handle(p4, route(3))).toEqual(unrouted);
    expect(await router(undefined, () => byP0).handle(p4, route(3))).toEqual(unrouted);
    expect(sent).toEqual([]);
  });

  it("answers a community's entry at once, asks the other replicas only for one it lacks, and ends unrouted if none answers", async () => {
    const all = sortByDistance(await Promise.all([1, 2, 3, 4].map(peer)), KEY);
    const [p0, p1, p2, p3] = all as [PeerId, PeerId, PeerId, PeerId];
    const rec = { p: new Uint8Array([1]), o: new Uint8Array([2]), s: new Uint8Array([3]) };
    const get = { v: WIRE_VERSION, swarm, t: 'contacts-get', id: 'a'.repeat(64) } as const;
    const asked: PeerId[] = [];
    const entryOf = (own: object, theirs: (to: PeerId) => object, fullTable = 3) =>
      new Router(host(p0, [], [p1, p2, p3]), {
        replicas: 3,
        maxHops: 4,
        fullTable,
        send: async (to) => {
          asked.push(to);
          return { ...ok(), ...theirs(to) } as never;
        },
        answer: async () => ok(own),
      }).answer(p3, get);
    // This node holds the entry: its own, and nobody is asked.
    expect(await entryOf({ rec }, () => ({ tomb: rec }))).toMatchObject({ rec, by: p0.toString() });
    expect(asked).toEqual([]);
    // It holds nothing: the first of the others that holds something answers in its place.
    const theirs = await entryOf({}, (to) => (to.equals(p2) ? { tomb: rec } : {}));
    expect(theirs).toMatchObject({ tomb: rec, by: p2.toString() });
    // p3 asked the read: not asked back.
    expect(asked.map(String).sort()).toEqual([p1, p2].map(String).sort());
    // Nobody holds anything: its own empty answer.
    expect(await entryOf({}, () => ({}))).toMatchObject({ ok: true, by: p0.toString() });
    // Unless its table holds fewer peers than a full bucket (FULL_TABLE by default): it may not
    // know the key's closer peers, and the requester looks the key up.
    expect(await entryOf({}, () => ({}), 4)).toEqual(ok({ outcome: UNROUTED }));
    expect(await entryOf({}, () => ({}), FULL_TABLE)).toEqual(ok({ outcome: UNROUTED }));
    // It holds nothing and no other replica answers at all: its word alone does not end the
    // read, the requester looks the key up.
    const silent = await entryOf({}, (to) => {
      throw new Error(`${to} is gone`);
    });
    expect(silent).toEqual(ok({ outcome: UNROUTED }));
  });

  it("takes a community's entry it lacks on to a closer connected peer before asking its table's replicas", async () => {
    const id = 'c'.repeat(64);
    const all = sortByDistance(
      await Promise.all([1, 2, 3, 4, 5].map(peer)),
      communityAddressKey(id),
    );
    const [p0, p1, p2, p3, p4] = all as [PeerId, PeerId, PeerId, PeerId, PeerId];
    const rec = { p: new Uint8Array([1]), o: new Uint8Array([2]), s: new Uint8Array([3]) };
    const get = { v: WIRE_VERSION, swarm, t: 'contacts-get', id } as const;
    const sent: { to: PeerId; t: string; hops?: number }[] = [];
    // p2 is a replica of two by its table (p3, p4: both farther from the key), holds nothing,
    // and is connected to `connected`; `theirs` is what a peer sent anything answers.
    const at = (connected: PeerId[], theirs: (to: PeerId, t: string) => object) =>
      new Router(host(p2, connected, [p3, p4]), {
        replicas: 2,
        maxHops: 4,
        fullTable: 2,
        send: async (to, req) => {
          sent.push({ to, t: req.t, ...(req.t === 'route' ? { hops: req.hops } : {}) });
          return { ...ok(), ...theirs(to, req.t) } as never;
        },
        answer: async () => ok(),
      });
    const routed = (req: RouteRequest['req'], hops: number): RouteRequest => ({
      v: WIRE_VERSION,
      swarm,
      t: 'route',
      hops,
      req,
    });
    // p0, connected and closer, holds it: its answer, as routed on with a hop less; the
    // table's replicas are not asked.
    const found = await at([p4, p0], (to) =>
      to.equals(p0) ? { rec, by: p0.toString() } : {},
    ).handle(p1, routed(get, 3));
    expect(found).toMatchObject({ rec, by: p0.toString() });
    expect(sent).toEqual([{ to: p0, t: 'route', hops: 2 }]);
    // Its empty answer stands too: p0 is closer to the key, and asked its own neighbours.
    sent.length = 0;
    const empty = await at([p0], () => ({ by: p0.toString() })).handle(p1, routed(get, 3));
    expect(empty).toMatchObject({ ok: true, by: p0.toString() });
    expect(sent).toEqual([{ to: p0, t: 'route', hops: 2 }]);
    // p0 ends it unrouted, or fails: the table's replicas are asked, as without it.
    for (const theirs of [
      (to: PeerId) => (to.equals(p0) ? { outcome: UNROUTED } : { rec }),
      (to: PeerId) => {
        if (to.equals(p0)) throw new Error('gone');
        return { rec };
      },
    ]) {
      sent.length = 0;
      const res = await at([p0], theirs).handle(p1, routed(get, 3));
      expect(res).toMatchObject({ rec });
      expect(sent.map((x) => `${x.to} ${x.t}`)).toEqual([
        `${p0} route`,
        `${p3} contacts-get`,
        `${p4} contacts-get`,
      ]);
    }
    // No hops left, no connected peer closer than p2 (nor its sender), or a query's key: the
    // table's replicas only.
    const query: RouteRequest['req'] = {
      v: WIRE_VERSION,
      swarm,
      t: 'query',
      key: communityAddressKey(id),
      profile: { w: [['a', 1]] },
      k: 3,
    };
    const cases: [PeerId[], RouteRequest['req'], number, PeerId][] = [
      [[p0], get, 0, p1],
      [[p3, p4], get, 3, p1],
      [[p0], get, 3, p0],
      [[p0], query, 3, p1],
    ];
    for (const [connected, req, hops, from] of cases) {
      sent.length = 0;
      await at(connected, () => ({})).handle(from, routed(req, hops));
      expect(sent.some((x) => x.t === 'route')).toBe(false);
    }
  });

  it("hands a community's entry on to the replicas its table has, twice as many where it is one", async () => {
    const id = 'b'.repeat(64);
    const all = sortByDistance(
      await Promise.all([1, 2, 3, 4, 5, 6].map(peer)),
      communityAddressKey(id),
    );
    const [p0, p1, p2, p3, p4, p5] = all as [PeerId, PeerId, PeerId, PeerId, PeerId, PeerId];
    const remove = { v: WIRE_VERSION, swarm, t: 'probe', key: KEY } as const;
    const spreadBy = (self: PeerId, table: PeerId[], from: PeerId) => {
      const sent: PeerId[] = [];
      new Router(host(self, [], table), {
        replicas: 2,
        maxHops: 4,
        send: async (to) => {
          sent.push(to);
          return { v: WIRE_VERSION, ok: true } as const;
        },
        answer: async () => ok(),
      }).spread(id, remove, from);
      return sent;
    };
    // p1 is a replica of two by its table: it hands on to twice the replicas its table has
    // closest, not back to its sender.
    expect(spreadBy(p1, [p0, p2, p3, p4, p5], p2)).toEqual([p0, p3, p4]);
    // p4 is none: it hands on to the replicas its table has, closer to the key than itself.
    expect(spreadBy(p4, [p0, p1, p2, p3], p2)).toEqual([p0, p1]);
    expect(spreadBy(p4, [p0, p1, p2, p3], p0)).toEqual([p1]);
    // A table that knows nobody: nothing to hand on to.
    expect(spreadBy(p4, [], p2)).toEqual([]);
  });

  it("sends a searcher's own read of a key it holds nothing of to a lookup, unless a replica its table has holds something", async () => {
    const all = sortByDistance(await Promise.all([1, 2, 3, 4].map(peer)), KEY);
    const [p0, p1, p2, p3] = all as [PeerId, PeerId, PeerId, PeerId];
    const query = route(0).req;
    const routedBy = async (theirs: (to: PeerId) => object) => {
      // p0 is the key's closest by its table: it answers its own read, and holds nothing.
      const router = new Router(host(p0, [p1, p2, p3], [p1, p2, p3]), {
        replicas: 3,
        maxHops: 4,
        send: async (to) => ({ ...ok(), ...theirs(to) }) as never,
        answer: async () => ok({ sums: [] }),
      });
      const net = new Libp2pNetwork({ peerId: p0 } as never, {} as never, {} as never, {
        lookupTimeoutMs: 1000,
        router,
      });
      return net.route(query);
    };
    // Its neighbours hold nothing either: no answer, the search looks the key up.
    expect(await routedBy(() => ({ held: 0 }))).toEqual({ via: p0 });
    // Nobody answers: the same.
    expect(
      await routedBy(() => {
        throw new Error('gone');
      }),
    ).toEqual({ via: p0 });
    // One of them holds something: its answer, named as its.
    const sums = [{ id: new Uint8Array(32), v: 1, sim: 0.5 }];
    const held = await routedBy((to) => (to.equals(p2) ? { held: 1, sums } : { held: 0 }));
    expect(held?.answer?.peer.toString()).toBe(p2.toString());
    expect(held?.answer?.res.sums).toEqual(sums);
  });

  it("does not take an empty answer from a replica farther from the key than a peer the requester's table has", async () => {
    const all = sortByDistance(await Promise.all([1, 2, 3, 4].map(peer)), KEY);
    const [p0, p1, p2, p3] = all as [PeerId, PeerId, PeerId, PeerId];
    const query = route(0).req;
    // p3 is connected to p1 alone, which answers for the key as the replica its own table
    // makes it; p3's table is `table` (closest first).
    const routedTo = (table: PeerId[], answer: object) => {
      const router = new Router(host(p3, [p1], table), {
        replicas: 1,
        maxHops: 4,
        send: async () => ok() as never,
        answer: async () => ok(),
      });
      const client = { request: async () => ({ ...ok(), by: p1.toString(), ...answer }) };
      const net = new Libp2pNetwork({ peerId: p3 } as never, client as never, {} as never, {
        lookupTimeoutMs: 1000,
        router,
      });
      return net.route(query);
    };
    // p3's table knows p0, closer to the key than p1: p1's table lacked it, and p0 may hold
    // what p1 does not. No answer: the search looks the key up.
    expect(await routedTo([p0, p1, p2], { sums: [] })).toEqual({ via: p1 });
    // p3 knows nobody closer than p1: its empty answer stands.
    const empty = await routedTo([p1, p2], { sums: [] });
    expect(empty?.answer?.peer.toString()).toBe(p1.toString());
    // What p1 holds stands whoever p3 knows.
    const sums = [{ id: new Uint8Array(32), v: 1, sim: 0.5 }];
    const held = await routedTo([p0, p1, p2], { sums });
    expect(held?.answer?.res.sums).toEqual(sums);
  });
});
