import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PeerId } from '@libp2p/interface';
import type { AddressManager } from '@libp2p/interface-internal';
import { type Multiaddr, multiaddr } from '@multiformats/multiaddr';
import { afterEach, describe, expect, it } from 'vitest';
import type { CidxLibp2p } from '../../src/net/libp2p.ts';
import { PROFILES_DHT_PROTOCOL } from '../../src/net/libp2p.ts';
import { isPrivateSwarm, judge, type ReachabilityMode } from '../../src/net/reachability.ts';
import { CidxNode } from '../../src/node/node.ts';
import { startSwarm, stopAll, variedProfiles, waitFor } from '../support/swarm.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.allSettled(cleanup.splice(0).map((f) => f()));
});

const addr = (s: string, verified: boolean, expires = 0) => ({
  multiaddr: multiaddr(s),
  verified,
  expires,
});

describe('judge: AutoNAT verdicts read from the address manager', () => {
  const now = 1_000_000;

  it('is public once a public, non-relayed address is verified', () => {
    const v = judge([addr('/ip4/11.0.0.1/tcp/4001', true, now + 1)], new Set(), now, 'unknown');
    expect(v.reachability).toBe('public');
  });

  it('ignores private-range and relayed addresses, verified or not', () => {
    const addrs = [
      addr('/ip4/127.0.0.1/tcp/4001', true),
      addr('/ip4/192.168.1.5/tcp/4001', true),
      addr(
        '/ip4/11.0.0.1/tcp/4001/p2p/12D3KooWRnBKUEkAEpsoCoEiuhxKBJ5j2Bdop6PGxFMvd4PwoevM/p2p-circuit',
        true,
      ),
    ];
    expect(judge(addrs, new Set(), now, 'unknown').reachability).toBe('unknown');
  });

  it('is unknown while a public address waits for its first test', () => {
    const v = judge([addr('/ip4/11.0.0.1/tcp/4001', false, 0)], new Set(), now, 'unknown');
    expect(v.reachability).toBe('unknown');
    expect([...v.seen]).toEqual(['/ip4/11.0.0.1/tcp/4001']);
  });

  it('is private when AutoNAT unconfirmed a transport address (retry time ahead)', () => {
    const v = judge(
      [addr('/ip4/11.0.0.1/tcp/4001', false, now + 300_000)],
      new Set(),
      now,
      'unknown',
    );
    expect(v.reachability).toBe('private');
  });

  it('is private when an observed address it saw was dropped unconfirmed, and stays so', () => {
    const first = judge([addr('/ip4/11.0.0.1/tcp/51234', false)], new Set(), now, 'unknown');
    const second = judge([], first.seen, now, first.reachability);
    expect(second.reachability).toBe('private');
    const third = judge([], second.seen, now + 60_000, second.reachability);
    expect(third.reachability).toBe('private');
    const fourth = judge([addr('/ip4/11.0.0.1/tcp/4001', true)], third.seen, now, 'private');
    expect(fourth.reachability).toBe('public');
  });
});

describe('isPrivateSwarm: auto serves at once where AutoNAT cannot judge', () => {
  it('holds when every bootstrap address is in a private or reserved range, or there is none', () => {
    expect(isPrivateSwarm([])).toBe(true);
    expect(
      isPrivateSwarm([
        '/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWRnBKUEkAEpsoCoEiuhxKBJ5j2Bdop6PGxFMvd4PwoevM',
      ]),
    ).toBe(true);
    expect(
      isPrivateSwarm(['/ip4/10.1.2.3/tcp/1', '/ip4/192.168.0.9/tcp/1/ws', '/ip4/198.18.0.1/tcp/1']),
    ).toBe(true);
  });

  it('fails with one public, DNS, in-process or unparsable bootstrap address', () => {
    expect(isPrivateSwarm(['/ip4/10.1.2.3/tcp/1', '/ip4/11.0.0.1/tcp/1'])).toBe(false);
    expect(isPrivateSwarm(['/dns4/boot.example.org/tcp/4001'])).toBe(false);
    expect(isPrivateSwarm(['/memory/a'])).toBe(false);
    expect(isPrivateSwarm(['not an address'])).toBe(false);
  });
});

async function memoryNode(mode: ReachabilityMode, bootstrap: string[]): Promise<CidxNode> {
  const n = await CidxNode.create({
    transport: 'memory',
    listen: [`/memory/reach-${randomBytes(4).toString('hex')}`],
    encryption: 'plaintext',
    reachability: mode,
    bootstrap,
    timing: { requestTimeoutMs: 5_000, lookupTimeoutMs: 10_000 },
  });
  cleanup.push(() => n.stop());
  await n.start();
  return n;
}

async function inRoutingTable(host: CidxLibp2p, peer: PeerId): Promise<boolean> {
  const tables = [host.services.profiles, host.services.addresses].map(
    (d) => (d as unknown as { routingTable: { find(p: PeerId): Promise<unknown> } }).routingTable,
  );
  for (const t of tables) if ((await t.find(peer)) !== undefined) return true;
  return false;
}

/** The protocols `host` learned `peer` speaks (identify, identify push). */
async function protocolsOf(host: CidxLibp2p, peer: PeerId): Promise<string[]> {
  return (await host.peerStore.get(peer)).protocols;
}

function addressManager(host: CidxLibp2p): AddressManager {
  return (host as unknown as { components: { addressManager: AddressManager } }).components
    .addressManager;
}

describe('DHT modes follow reachability', () => {
  it('a public node serves: it is in the routing tables and stores its share', async () => {
    const nodes = await startSwarm(3);
    cleanup.push(() => stopAll(nodes));
    const b = await memoryNode('public', [nodes[0]?.addrs[0] as string]);
    const info = b.libp2p.services.reachability;
    expect([info.reachability, info.dhtMode]).toEqual(['public', 'server']);
    const others = nodes.map((n) => n.libp2p);
    // Every node meets it: its join's self-lookup alone may meet only one (joinSwarm,
    // bootstrap.ts).
    for (const h of others) await h.dial(b.peerId);
    await waitForAsync(async () => {
      for (const h of others) if (!(await inRoutingTable(h, b.peerId))) return false;
      return true;
    }, 'the public node in every routing table');
    for (const p of variedProfiles(12, 12, 5)) await nodes[1]?.create(p);
    expect(b.info().stored.descriptors).toBeGreaterThan(0);
  });

  it('a private node is in no routing table and stores nothing, yet searches and creates', async () => {
    const nodes = await startSwarm(4);
    cleanup.push(() => stopAll(nodes));
    const p = await memoryNode('private', [nodes[0]?.addrs[0] as string]);
    const r = p.libp2p.services.reachability;
    expect([r.reachability, r.dhtMode]).toEqual(['private', 'client']);
    expect(p.info().peers.profiles).toBeGreaterThan(0);
    const profiles = variedProfiles(8, 12, 9);
    const mine = [];
    for (const q of profiles.slice(0, 4)) mine.push((await p.create(q)).id);
    const theirs = [];
    for (const [i, q] of profiles.slice(4).entries())
      theirs.push((await (nodes[i % nodes.length] as CidxNode).create(q)).id);
    for (const [i, q] of profiles.entries()) {
      const want = i < 4 ? mine[i] : theirs[i - 4];
      expect((await p.search(q))[0]?.id).toBe(want);
      expect((await (nodes[i % 4] as CidxNode).search(q))[0]?.id).toBe(want);
    }
    expect(p.info().stored).toMatchObject({ descriptors: 0, keys: 0, contacts: 0 });
    // It serves neither DHT, so identify tells the nodes it met nothing that would put it in a
    // routing table (their peer stores do list the protocols it queried them with: libp2p
    // assumes a peer speaks what it opens streams for; routing tables go by identify).
    expect(p.libp2p.getProtocols()).not.toContain(PROFILES_DHT_PROTOCOL);
    expect(
      nodes.filter((n) => n.libp2p.getConnections(p.peerId).length > 0).length,
    ).toBeGreaterThan(0);
    for (const n of nodes) expect(await inRoutingTable(n.libp2p, p.peerId)).toBe(false);
  });

  it('auto serves at once in a swarm on loopback, where AutoNAT cannot judge', async () => {
    const a = await tcpNode('public', {});
    const b = await tcpNode('auto', { bootstrap: a.addrs });
    const r = b.libp2p.services.reachability;
    expect([r.reachability, r.dhtMode]).toEqual(['unknown', 'server']);
    await waitForAsync(() => inRoutingTable(a.libp2p, b.peerId), 'b in a routing table');
  });

  it('auto stays a client until an address is confirmed, serves while it is, and not after', async () => {
    const a = await tcpNode('public', {});
    // As on a network where AutoNAT can judge (the swarm is not numbered in private ranges).
    const b = await tcpNode('auto', { bootstrap: a.addrs, privateSwarm: false });
    const r = b.libp2p.services.reachability;
    expect([r.reachability, r.dhtMode]).toEqual(['unknown', 'client']);
    expect(b.libp2p.getProtocols()).not.toContain(PROFILES_DHT_PROTOCOL);
    await waitForAsync(
      async () => (await protocolsOf(a.libp2p, b.peerId)).length > 0,
      'a identified b',
    );
    expect(await inRoutingTable(a.libp2p, b.peerId)).toBe(false);

    // What AutoNAT does when peers dialled an address of ours back: confirm it. The address is
    // public but of a transport neither node has (QUIC), so nothing ever dials it.
    const changes: string[] = [];
    r.addEventListener('change', (e) =>
      changes.push(`${e.detail.reachability}/${e.detail.dhtMode}`),
    );
    const observed: Multiaddr = multiaddr('/ip4/11.0.0.1/udp/4001/quic-v1');
    addressManager(b.libp2p).confirmObservedAddr(observed, { type: 'observed' });
    await waitFor(() => changes.includes('public/server'), 10_000, 'server mode');
    expect([r.reachability, r.dhtMode]).toEqual(['public', 'server']);
    await waitForAsync(() => inRoutingTable(a.libp2p, b.peerId), 'b in a routing table');

    // AutoNAT's verdict turns: the address is withdrawn.
    addressManager(b.libp2p).removeObservedAddr(observed);
    await waitFor(() => changes.includes('private/client'), 10_000, 'client mode');
    expect([r.reachability, r.dhtMode]).toEqual(['private', 'client']);
    expect(b.libp2p.getProtocols()).not.toContain(PROFILES_DHT_PROTOCOL);
    expect(b.libp2p.services.addresses.getMode()).toBe('client');
  });
});

async function tcpNode(
  mode: ReachabilityMode,
  o: { bootstrap?: string[]; privateSwarm?: boolean },
): Promise<CidxNode> {
  const n = await CidxNode.create({
    transport: 'tcp',
    listen: ['/ip4/127.0.0.1/tcp/0'],
    reachability: mode,
    ...o,
    timing: { requestTimeoutMs: 5_000, lookupTimeoutMs: 10_000 },
  });
  cleanup.push(() => n.stop());
  await n.start();
  return n;
}

async function waitForAsync(
  cond: () => Promise<boolean>,
  what: string,
  ms = 15_000,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
