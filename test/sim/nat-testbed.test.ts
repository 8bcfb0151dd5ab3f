/**
 * The NAT test bed (root, iproute2, nftables, Chromium; `npm run build` first): three public
 * `cidx node` processes on a bridge, two home networks each behind its own masquerading router
 * with one node left on `auto`, a stranger with another swarm key — real network stacks in
 * namespaces (sim/processes/nat-testbed.ts). The home nodes find out on their own that nobody
 * can dial them, and the swarm reaches them through relays.
 */

import { multiaddr } from '@multiformats/multiaddr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireNetns } from '../../sim/netns/index.ts';
import { listNamespaces } from '../../sim/netns/namespaces.ts';
import { NatTestbed, type TestbedNode, tcpAddr } from '../../sim/processes/index.ts';
import { IndexClient } from '../../src/net/client.ts';
import { WIRE_VERSION } from '../../src/net/codec.ts';
import { Meter } from '../../src/net/meter.ts';
import type { CidxNode } from '../../src/node/node.ts';
import type { ProfileJSON } from '../../src/profile/profile.ts';
import type { ChangeResult } from '../../src/rpc/api.ts';
import { type BrowserPage, browserPage, dialOnlyNode, until } from '../support/nat-testbed.ts';
import { stillAlive } from '../support/netns-probe.ts';

const HOOK_MS = 180_000;
const X = { weights: { canto: 1.4, Verdi: 0.9, Rigoletto: 0.62, chitarra: 0.8 } };
const Y = { weights: { Verdi: 1, Rigoletto: 1, opera: 1, canto: 0.5 } };
const Z = { weights: { canto: 1.2, Verdi: 1, chitarra: 1, liuto: 0.4 } };

type Match = { id: string; similarity: number; contacts: string[] };
const info = (n: TestbedNode) => n.rpc.call('node.info');
const peers = (n: TestbedNode) => n.rpc.call('node.peers');
const search = (n: TestbedNode, profile: ProfileJSON) =>
  n.rpc.call('community.search', { profile, k: 5 });
const create = (n: TestbedNode, profile: ProfileJSON) =>
  n.rpc.call('community.create', { profile });
const notified = (n: TestbedNode, id: string) =>
  until(
    async () =>
      (await n.rpc.call('notifications.list', {})).notifications.find((x) => x.community.id === id),
    60_000,
    `${n.name} notified of ${id.slice(0, 8)}`,
  );
/** A contact through a relay that reaches `peer`: …/p2p/<relay>/p2p-circuit/p2p/<peer>. */
const viaRelay = (addr: string, peer: string) =>
  new RegExp(`/p2p/\\w+/p2p-circuit/p2p/${peer}$`).test(addr);

describe('a NAT test bed of namespaces', () => {
  let bed: NatTestbed;
  let probe: CidxNode | undefined;
  let browser: BrowserPage | undefined;
  let homeA: TestbedNode;
  let homeB: TestbedNode;
  let x: ChangeResult;

  beforeAll(async () => {
    requireNetns();
    bed = await NatTestbed.create({ publics: 3, homes: 2, strangers: 1 });
    [homeA, homeB] = bed.homes as [TestbedNode, TestbedNode];
    // Reserving relay slots takes a few round trips after the start.
    for (const h of bed.homes)
      await until(
        async () => (await info(h)).addrs.some((a) => viaRelay(a, h.peerId)),
        60_000,
        `${h.name}'s relay reservation`,
      );
  }, HOOK_MS);

  afterAll(async () => {
    await browser?.close();
    await probe?.stop();
    const pids = bed?.harness.nodes.map((p) => p.pid) ?? [];
    await bed?.close();
    expect(await stillAlive(pids)).toEqual([]);
    expect(listNamespaces(`cidx-${process.pid}-`)).toEqual([]);
  }, HOOK_MS);

  it('home nodes find out they cannot be dialled: DHT clients, in no routing table', async () => {
    const homeIds = bed.homes.map((h) => h.peerId);
    for (const h of bed.homes) {
      const i = await info(h);
      expect(i.dhtMode).toBe('client');
      // Nobody confirmed an address of theirs (AutoNAT never could, behind the NAT).
      expect(i.reachability).not.toBe('public');
      expect(i.peers.profiles).toBeGreaterThan(0); // they know the servers
    }
    const seen = new Set<string>();
    for (const p of bed.publics) {
      expect(await info(p)).toMatchObject({ reachability: 'public', dhtMode: 'server' });
      const { routing, connections } = await peers(p);
      const others = bed.publics.filter((q) => q !== p).map((q) => q.peerId);
      for (const dht of [routing.profiles, routing.addresses]) {
        expect(dht.some((id) => others.includes(id))).toBe(true);
        for (const id of homeIds) expect(dht).not.toContain(id);
      }
      for (const c of connections) seen.add(c.peer);
    }
    // The public nodes are connected to the homes (relay slots, lookups), yet route to none.
    for (const id of homeIds) expect(seen).toContain(id);
  });

  it('a home community is found from a public node with relay contacts that reach the home', async () => {
    x = await create(homeA, X);
    const [best] = (await search(bed.publics[2] as TestbedNode, X)).results;
    expect(best?.id).toBe(x.id);
    expect(best?.contacts.length).toBeGreaterThan(0);
    for (const a of best?.contacts ?? []) expect(viaRelay(a, homeA.peerId)).toBe(true);

    // Dial a contact from a node that never met the home: it answers, over a relayed connection.
    probe = await dialOnlyNode(bed.swarmKey);
    const client = new IndexClient(
      probe.libp2p,
      { timeoutMs: 10_000, maxFrameBytes: 1 << 20 },
      new Meter(),
    );
    const res = await client.request(multiaddr(best?.contacts[0] as string), {
      v: WIRE_VERSION,
      swarm: probe.swarm.digest,
      t: 'params',
    });
    expect(res.params).toEqual(probe.swarm.params);
    const conns = probe.libp2p.getConnections().filter((c) => `${c.remotePeer}` === homeA.peerId);
    expect(conns.length).toBeGreaterThan(0);
    for (const c of conns) {
      expect(c.remoteAddr.toString()).toContain('/p2p-circuit');
      expect(c.limits).toBeDefined();
    }
  });

  it('a public node creates a similar community: the home node is notified', async () => {
    const y = await create(bed.publics[1] as TestbedNode, Y);
    expect(y.similar.map((s) => s.id)).toContain(x.id);
    expect(y.notified).toBeGreaterThanOrEqual(1);
    expect(await notified(homeA, y.id)).toMatchObject({ kind: 'created', for: x.id });
  });

  it('the other home searches, and its similar community notifies the first through a relay', async () => {
    const { results } = await search(homeB, X);
    expect(results[0]?.id).toBe(x.id);
    const z = await create(homeB, Z);
    expect(z.similar.map((s) => s.id)).toContain(x.id);
    expect(await notified(homeA, z.id)).toMatchObject({ for: x.id });
    // Two homes behind NATs: no direct connection between them can be opened from either side.
    const between = (await peers(homeA)).connections.filter((c) => c.peer === homeB.peerId);
    expect(between.length).toBeGreaterThan(0);
  });

  it('a web page joins through a public WebSockets address and finds the home community', async () => {
    // Chromium runs in this process's namespace and reaches the test network through the
    // control leg, as a browser elsewhere reaches a public node.
    browser = await browserPage();
    const ws = bed.wsAddr(bed.publics[0] as TestbedNode);
    const key = new TextDecoder().decode(bed.swarmKey);
    const found = (await browser.page.evaluate(
      async ([bootstrap, swarmKey, profile]) => {
        const c = (globalThis as unknown as { cidx: Record<string, CallableFunction> }).cidx;
        const node = await c.startBrowserNode?.({
          bootstrap: [bootstrap],
          swarmKey: new TextEncoder().encode(swarmKey as string),
        });
        const results = await node.search(profile);
        const out = {
          addrs: node.addrs as string[],
          mode: node.libp2p.services.reachability.dhtMode as string,
          results: results.map((r: Match) => ({ id: r.id, contacts: r.contacts })),
        };
        await node.stop();
        return out;
      },
      [ws, key, X] as const,
    )) as { addrs: string[]; mode: string; results: Match[] };
    expect(found.mode).toBe('client');
    expect(found.addrs.length).toBeGreaterThan(0);
    const hit = found.results.find((r) => r.id === x.id);
    expect(hit).toBeDefined();
    for (const a of hit?.contacts ?? []) expect(viaRelay(a, homeA.peerId)).toBe(true);
  });

  it('a node with another swarm key gets nothing: no connection, no answers', async () => {
    const [stranger] = bed.strangers as [TestbedNode];
    const i = await info(stranger);
    expect(i.peers.connections).toBe(0);
    expect(i.peers.profiles).toBe(0);
    expect((await search(stranger, X)).results).toEqual([]);
    for (const p of bed.publics)
      expect((await peers(p)).connections.map((c) => c.peer)).not.toContain(stranger.peerId);
    // Nor can a member reach it.
    probe ??= await dialOnlyNode(bed.swarmKey);
    const dialer = probe;
    await expect(
      dialer.libp2p.dial(multiaddr(tcpAddr(stranger)), { signal: AbortSignal.timeout(10_000) }),
    ).rejects.toThrow();
  });
});
