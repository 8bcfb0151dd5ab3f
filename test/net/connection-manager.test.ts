import type { Connection } from '@libp2p/interface';
import { describe, expect, it } from 'vitest';
import { connectionManagerMissing } from '../../src/net/connection-manager.ts';
import type { CidxLibp2p } from '../../src/net/libp2p.ts';
import { memoryHosts } from '../support/memory-hosts.ts';
import { WAIT_MS, waitFor } from '../support/swarm.ts';

describe("a host's connection manager", () => {
  const hostOf = memoryHosts('cm');
  const make = (maxConnections?: number) =>
    hostOf(maxConnections === undefined ? {} : { maxConnections });

  it('lists every connection once, in the order of its peers, as libp2p did', async () => {
    const hub = await make();
    expect(connectionManagerMissing(hub)).toEqual([]);
    const peers = await Promise.all([make(), make(), make(), make()]);
    for (const p of peers) await p.dial(hub.getMultiaddrs()[0] as never);
    // A second connection to one peer: lists hold more than one.
    await peers[0]?.dial(hub.getMultiaddrs()[0] as never, { force: true });
    await waitFor(() => hub.getConnections().length === 5, WAIT_MS, "the hub's 5 connections");
    // libp2p's own listing, from the same per-peer lists.
    let theirs: Connection[] = [];
    const manager = (
      hub as unknown as {
        components: { connectionManager: { getConnectionsMap(): Map<unknown, Connection[]> } };
      }
    ).components.connectionManager;
    for (const list of manager.getConnectionsMap().values()) theirs = theirs.concat(list);
    expect(hub.getConnections().map((c) => c.id)).toEqual(theirs.map((c) => c.id));
    expect(new Set(hub.getConnections().map((c) => c.id)).size).toBe(5);
    expect(hub.getConnections(peers[0]?.peerId)).toHaveLength(2);
  });

  it('under its limit, does not list its connections when one opens', async () => {
    const hub = await make(4);
    const peers = await Promise.all([make(), make(), make(), make()]);
    const manager = (
      hub as unknown as {
        components: { connectionManager: { getConnections(peer?: unknown): Connection[] } };
      }
    ).components.connectionManager;
    const listing = manager.getConnections;
    let listed = 0;
    manager.getConnections = (peer?: unknown) => {
      if (peer === undefined) listed++;
      return listing.call(manager, peer);
    };
    let opened = 0;
    hub.addEventListener('connection:open', () => opened++);
    // Dialled by the hub: no check of an inbound connection lists them either.
    for (const p of peers) await hub.dial(p.getMultiaddrs()[0] as never);
    await waitFor(() => opened === 4, WAIT_MS, 'four connections opened at the hub');
    // The pruner runs on each 'connection:open', after this listener: let it finish.
    await new Promise((r) => setImmediate(r));
    expect(hub.getConnections()).toHaveLength(4);
    expect(listed).toBe(1);
  });

  it("prunes by its peers' tags as they are now, read once and then followed", async () => {
    const hub = await make(3);
    const [a, b, c, d] = await Promise.all([make(), make(), make(), make()]);
    if (a === undefined || b === undefined || c === undefined || d === undefined) throw new Error();
    const manager = (
      hub as unknown as {
        components: { connectionManager: { setMaxConnections(n: number): void } };
      }
    ).components.connectionManager;
    const tag = (p: CidxLibp2p, value: number) =>
      hub.peerStore.merge(p.peerId, { tags: { keep: { value } } });
    const open = (p: CidxLibp2p) => hub.getConnections(p.peerId).length > 0;
    // The pruner closes only connections without streams, and runs when one opens past the
    // limit or the limit is lowered: lowered here, once every connection is idle.
    const pruneTo2 = async () => {
      await waitFor(
        () => hub.getConnections().every((x) => x.streams.length === 0),
        WAIT_MS,
        "the hub's connections idle",
      );
      manager.setMaxConnections(2);
      await waitFor(() => hub.getConnections().length === 2, WAIT_MS, 'one connection closed');
      manager.setMaxConnections(3);
    };
    await tag(a, 100);
    for (const p of [a, b, c]) await hub.dial(p.getMultiaddrs()[0] as never);
    // The pruner reads every connected peer's tags (a: 100, b and c: none).
    await pruneTo2();
    expect(open(a)).toBe(true);
    const kept = open(b) ? b : c;
    // The tags change: a is worth nothing now, the survivor of b and c the most, d in between.
    await tag(a, 0);
    await tag(kept, 100);
    await tag(d, 50);
    await hub.dial(d.getMultiaddrs()[0] as never);
    await pruneTo2();
    expect(open(a)).toBe(false);
    expect(open(kept)).toBe(true);
    expect(open(d)).toBe(true);
  });
});
