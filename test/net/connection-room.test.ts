import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { connectedRecords } from '../../src/net/connected-records.ts';
import { connectionRoomMissing, makeRoomAtLimit } from '../../src/net/connection-room.ts';
import { type CidxLibp2p, createHost } from '../../src/net/libp2p.ts';
import { WAIT_MS, waitFor } from '../support/swarm.ts';

/**
 * A node at its connection limit (src/net/connection-room.ts), on real libp2p hosts over the
 * memory transport. The hub's peers are DHT clients, which no routing table keeps, except one
 * DHT server, which the hub's routing tables tag.
 */
describe('a new peer at the connection limit', () => {
  const hosts: CidxLibp2p[] = [];
  afterEach(async () => {
    await Promise.allSettled(hosts.splice(0).map((h) => h.stop()));
  });
  const make = async (o: Partial<Parameters<typeof createHost>[0]> = {}) => {
    const h = await createHost({
      transport: 'memory',
      encryption: 'plaintext',
      simulation: true,
      listen: [`/memory/room-${randomBytes(4).toString('hex')}`],
      ...o,
    });
    hosts.push(h);
    await h.start();
    return h;
  };
  /** The hub with libp2p's refusal alone, to which the test adds the room-making or not. */
  const hub = (maxConnections: number) =>
    make({ maxConnections, replaceIdleMs: 0, reachability: 'public' });
  const client = () => make({ reachability: 'private' });
  const idle = (h: CidxLibp2p) =>
    waitFor(
      () => h.getConnections().every((c) => c.streams.length === 0),
      WAIT_MS,
      "the hub's connections idle",
    );
  const connect = async (h: CidxLibp2p, p: CidxLibp2p) => {
    await idle(h);
    await p.dial(h.getMultiaddrs()[0] as never);
    await waitFor(() => h.getConnections(p.peerId).length > 0, WAIT_MS, 'the hub connected');
  };
  /** Whether the hub's record of the peer (as libp2p last wrote it) holds a valued tag. */
  const tagged = (h: CidxLibp2p, p: CidxLibp2p) =>
    [...(connectedRecords(h).get(p.peerId)?.peer.tags.values() ?? [])].some((t) => t.value > 0);

  it('takes every new peer, closing the oldest idle connection no routing table keeps', async () => {
    const h = await hub(6);
    const counts = makeRoomAtLimit(h, 1);
    expect(connectionRoomMissing(h)).toEqual([]);
    // The oldest connection: a DHT server, which the hub's routing tables tag.
    const server = await make({ reachability: 'public' });
    await connect(h, server);
    await waitFor(() => tagged(h, server), WAIT_MS, "the server in the hub's routing table");
    const clients = await Promise.all(Array.from({ length: 8 }, client));
    let most = 0;
    h.addEventListener('connection:open', () => {
      most = Math.max(most, h.getConnections().length);
    });
    for (const c of clients) await connect(h, c);
    await idle(h);
    // Three replaced (1 server + 8 clients, limit 6), none refused.
    expect(counts).toEqual({ replaced: 3, refused: 0 });
    await waitFor(() => h.getConnections().length === 6, WAIT_MS, 'the replaced ones closed');
    // One over the limit at most, while a replaced connection closes.
    expect(most).toBeLessThanOrEqual(7);
    expect(h.getConnections(server.peerId)).toHaveLength(1);
    // The oldest clients went, the newest stay.
    for (const c of clients.slice(0, 3)) expect(h.getConnections(c.peerId)).toHaveLength(0);
    for (const c of clients.slice(3)) expect(h.getConnections(c.peerId)).toHaveLength(1);
  });

  it('without it, libp2p refuses the peer past the limit', async () => {
    const h = await hub(4);
    const clients = await Promise.all(Array.from({ length: 5 }, client));
    for (const c of clients.slice(0, 4)) await connect(h, c);
    await idle(h);
    await expect(clients[4]?.dial(h.getMultiaddrs()[0] as never)).rejects.toThrow();
    expect(h.getConnections()).toHaveLength(4);
  });

  it('refuses when every connection is younger than the idle time, or kept by a table', async () => {
    const h = await hub(4);
    const counts = makeRoomAtLimit(h, 3_600_000);
    const clients = await Promise.all(Array.from({ length: 5 }, client));
    for (const c of clients.slice(0, 4)) await connect(h, c);
    await idle(h);
    await expect(clients[4]?.dial(h.getMultiaddrs()[0] as never)).rejects.toThrow();
    expect(h.getConnections()).toHaveLength(4);
    expect(counts).toEqual({ replaced: 0, refused: 1 });

    const full = await hub(2);
    const kept = makeRoomAtLimit(full, 1);
    const servers = await Promise.all(
      Array.from({ length: 3 }, () => make({ reachability: 'public' })),
    );
    for (const s of servers.slice(0, 2)) {
      await connect(full, s);
      await waitFor(() => tagged(full, s), WAIT_MS, "the server in the hub's routing table");
    }
    await idle(full);
    await expect(servers[2]?.dial(full.getMultiaddrs()[0] as never)).rejects.toThrow();
    expect(kept).toEqual({ replaced: 0, refused: 1 });
  });
});
