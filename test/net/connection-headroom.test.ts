import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionHeadroomMissing } from '../../src/net/connection-headroom.ts';
import { type CidxLibp2p, createHost } from '../../src/net/libp2p.ts';
import { WAIT_MS, waitFor } from '../support/swarm.ts';

describe('room for new peers at a node near its connection limit', () => {
  const hosts: CidxLibp2p[] = [];
  afterEach(async () => {
    await Promise.allSettled(hosts.splice(0).map((h) => h.stop()));
  });
  const make = async (o: { maxConnections?: number; connectionGraceMs?: number } = {}) => {
    const h = await createHost({
      ...o,
      transport: 'memory',
      encryption: 'plaintext',
      simulation: true,
      listen: [`/memory/ch-${randomBytes(4).toString('hex')}`],
    });
    hosts.push(h);
    await h.start();
    return h;
  };
  const idle = (hub: CidxLibp2p) =>
    waitFor(
      () => hub.getConnections().every((c) => c.streams.length === 0),
      WAIT_MS,
      "the hub's connections idle",
    );

  it('takes every new peer past the limit, closing idle ones, the least valued first', async () => {
    // Limit 10: trimming starts past 9 connections and closes idle ones down to 8.
    const hub = await make({ maxConnections: 10, connectionGraceMs: 0 });
    expect(connectionHeadroomMissing(hub)).toEqual([]);
    const peers = await Promise.all(Array.from({ length: 12 }, () => make()));
    const [valued] = peers;
    if (valued === undefined) throw new Error();
    // Worth more than any tag kad-dht gives (its closest peers: 50, its table's: 1).
    await hub.peerStore.merge(valued.peerId, {
      tags: { keep: { value: 100 }, friend: { value: 100 } },
    });
    const most = { connections: 0 };
    hub.addEventListener('connection:open', () => {
      most.connections = Math.max(most.connections, hub.getConnections().length);
    });
    for (const p of peers) {
      await idle(hub);
      // libp2p alone refuses the 11th: the hub holds 10 connections, all idle.
      await p.dial(hub.getMultiaddrs()[0] as never);
      await waitFor(() => hub.getConnections(p.peerId).length > 0, WAIT_MS, 'the hub connected');
    }
    await idle(hub);
    expect(most.connections).toBeLessThanOrEqual(10);
    expect(hub.getConnections().length).toBeLessThanOrEqual(10);
    // The oldest connection survives by its value; the newest by being in use when trimmed.
    expect(hub.getConnections(valued.peerId)).toHaveLength(1);
    expect(hub.getConnections(peers[11]?.peerId)).toHaveLength(1);
  });

  it('leaves young connections alone: within the grace period the limit refuses', async () => {
    const hub = await make({ maxConnections: 4 }); // the default grace: 30 s
    const peers = await Promise.all(Array.from({ length: 5 }, () => make()));
    for (const p of peers.slice(0, 4)) {
      await idle(hub);
      await p.dial(hub.getMultiaddrs()[0] as never);
      await waitFor(() => hub.getConnections(p.peerId).length > 0, WAIT_MS, 'the hub connected');
    }
    await idle(hub);
    expect(hub.getConnections()).toHaveLength(4);
    await expect(peers[4]?.dial(hub.getMultiaddrs()[0] as never)).rejects.toThrow();
    expect(hub.getConnections()).toHaveLength(4);
  });
});
