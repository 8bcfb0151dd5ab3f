import { lpStream } from '@libp2p/utils';
import { multiaddr } from '@multiformats/multiaddr';
import { afterEach, describe, expect, it } from 'vitest';
import {
  decodeResponse,
  encodeMessage,
  INDEX_PROTOCOL,
  WIRE_VERSION,
} from '../../src/net/codec.ts';
import type { ReachabilityMode } from '../../src/net/reachability.ts';
import { DEFAULT_RELAY, type RelaySettings, resolveRelay } from '../../src/net/relay.ts';
import { CidxNode } from '../../src/node/node.ts';
import { waitFor } from '../support/swarm.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.allSettled(cleanup.splice(0).map((f) => f()));
});

async function tcpNode(
  mode: ReachabilityMode,
  o: { bootstrap?: string[]; listen?: string[]; relay?: Partial<RelaySettings> } = {},
): Promise<CidxNode> {
  const n = await CidxNode.create({
    transport: 'tcp',
    listen: o.listen ?? ['/ip4/127.0.0.1/tcp/0'],
    reachability: mode,
    bootstrap: o.bootstrap,
    relay: o.relay,
    timing: { requestTimeoutMs: 5_000, lookupTimeoutMs: 10_000 },
  });
  cleanup.push(() => n.stop());
  await n.start();
  return n;
}

interface RelayServer {
  reservations: { get(p: unknown): { limit?: unknown } | undefined };
}

const RELAY = { dataLimitBytes: 1_048_576, durationLimitMs: 60_000 };

/**
 * A node that cannot be dialled: private, listening on no address of its own (as behind a NAT,
 * whose router drops every connection from outside). It reaches out to the swarm, and the swarm
 * reaches it through its relay.
 */
async function behindNat(relay: CidxNode): Promise<{ node: CidxNode; circuit: string[] }> {
  const node = await CidxNode.create({
    transport: 'tcp',
    listen: [],
    reachability: 'private',
    bootstrap: relay.addrs,
    // One slot: once held, the node stops looking for relays (and dialling peers to find them).
    relay: { reservations: 1 },
    // No periodic self-lookups: the node meets nobody on its own after it started (the test
    // checks that the swarm reaches it through the relay, not over a connection it opened).
    dht: { initialQuerySelfInterval: 3_600_000, querySelfInterval: 3_600_000 },
    timing: { requestTimeoutMs: 5_000, lookupTimeoutMs: 10_000 },
  });
  cleanup.push(() => node.stop());
  const seen: string[][] = [];
  node.libp2p.services.reachability.addEventListener('relay-addresses', (e) => seen.push(e.detail));
  await node.start();
  await waitFor(
    () => node.libp2p.services.reachability.relayAddrs.length > 0,
    15_000,
    'a reservation',
  );
  const circuit = node.libp2p.services.reachability.relayAddrs;
  expect(seen.at(-1)).toEqual(circuit);
  expect(node.addrs.sort()).toEqual([...circuit].sort());
  for (const a of circuit) {
    expect(a).toContain(`/p2p/${relay.peerId}/p2p-circuit/p2p/${node.peerId}`);
  }
  return { node, circuit };
}

describe('relay settings', () => {
  it('default to bounded values and refuse out-of-range ones, naming the setting', () => {
    expect(resolveRelay()).toEqual(DEFAULT_RELAY);
    expect(resolveRelay({ reservations: 0, maxReservations: 0 })).toMatchObject({
      reservations: 0,
      maxReservations: 0,
    });
    for (const [k, v] of [
      ['reservations', 9],
      ['maxReservations', -1],
      ['reservationTtlMs', 1000],
      ['durationLimitMs', 1.5],
      ['dataLimitBytes', 1024],
    ] as const) {
      expect(() => resolveRelay({ [k]: v })).toThrow(`relay.${k}`);
    }
  });

  it('a host refuses an unknown reachability or a bad relay setting before it starts', async () => {
    const base = { transport: 'tcp' as const, listen: ['/ip4/127.0.0.1/tcp/0'] };
    await expect(CidxNode.create({ ...base, reachability: 'sometimes' as never })).rejects.toThrow(
      /reachability: must be one of auto, public, private/,
    );
    await expect(CidxNode.create({ ...base, relay: { dataLimitBytes: 10 } })).rejects.toThrow(
      /relay\.dataLimitBytes/,
    );
  });
});

describe('a node that cannot be dialled is reached through a relay', () => {
  it('a request dialled to its /p2p-circuit address is answered, within the relay’s bounds', async () => {
    const r = await tcpNode('public', { relay: RELAY });
    const { node: p, circuit } = await behindNat(r);
    // A node that never met it: no connection to reuse, only the relay's address.
    const z = await tcpNode('public');
    expect(z.libp2p.getConnections(p.peerId)).toHaveLength(0);

    const signal = AbortSignal.timeout(10_000);
    const stream = await z.libp2p.dialProtocol(multiaddr(circuit[0]), INDEX_PROTOCOL, {
      signal,
      runOnLimitedConnection: true,
    });
    const lp = lpStream(stream);
    await lp.write(encodeMessage({ v: WIRE_VERSION, swarm: p.swarm.digest, t: 'params' }), {
      signal,
    });
    const res = decodeResponse((await lp.read({ signal })).subarray());
    await stream.close({ signal });
    expect(res.ok).toBe(true);
    expect(res.ok && res.params).toEqual(p.swarm.params);

    const [conn, ...more] = z.libp2p.getConnections(p.peerId);
    expect(more).toHaveLength(0);
    expect(conn?.remoteAddr.toString()).toContain('/p2p-circuit');
    // The relay granted the reservation with the configured bounds…
    const relay = (r.libp2p.services as unknown as { relay: RelayServer }).relay;
    expect(relay.reservations.get(p.peerId)?.limit).toEqual({
      data: BigInt(RELAY.dataLimitBytes),
      duration: RELAY.durationLimitMs,
    });
    // …and cuts a relayed connection that carries more than its data limit. On this connection:
    // a dial to the circuit address would open another (libp2p reuses no limited connection).
    const big = new Uint8Array(RELAY.dataLimitBytes + 64 * 1024);
    await expect(
      (async () => {
        const s = await (conn as NonNullable<typeof conn>).newStream(INDEX_PROTOCOL, {
          signal: AbortSignal.timeout(10_000),
          runOnLimitedConnection: true,
        });
        const lp2 = lpStream(s, { maxDataLength: 4 * 1024 * 1024 });
        await lp2.write(big, { signal: AbortSignal.timeout(10_000) });
        await lp2.read({ signal: AbortSignal.timeout(10_000) });
      })(),
    ).rejects.toThrow();
    await waitFor(() => conn?.status !== 'open', 10_000, 'the relayed connection closed');
  });

  it('its communities list its relay addresses, and a notification reaches it through the relay', async () => {
    const r = await tcpNode('public', { relay: RELAY });
    const { node: p, circuit } = await behindNat(r);
    const mine = await p.create({ weights: { canto: 1.4, Verdi: 0.9, Rigoletto: 0.62 } });
    expect((await r.get(mine.id)).contacts.sort()).toEqual([...circuit].sort());

    // A node that joins later, never having met it, creates a similar community.
    const c = await tcpNode('public', { bootstrap: r.addrs });
    expect(c.libp2p.getConnections(p.peerId)).toHaveLength(0);
    const opened: { addr: string; direction: string }[] = [];
    c.libp2p.addEventListener('connection:open', (e) => {
      if (e.detail.remotePeer.equals(p.peerId))
        opened.push({ addr: e.detail.remoteAddr.toString(), direction: e.detail.direction });
    });
    const notified = new Promise<string>((resolve) =>
      p.on('notification', (n) => resolve(n.record.id)),
    );
    const theirs = await c.create({ weights: { Verdi: 1, Rigoletto: 1, opera: 1 } });
    expect(theirs.similar.map((s) => s.id)).toContain(mine.id);
    expect(await notified).toBe(theirs.id);
    expect(theirs.notified).toBeGreaterThanOrEqual(1);
    // c reached it by dialling its relay address; any direct connection between them is one p
    // opened (a node behind a NAT dials out freely, e.g. to check c's swarm parameters).
    expect(opened[0]?.direction).toBe('outbound');
    expect(circuit).toContain(opened[0]?.addr);
    for (const o of opened.slice(1))
      if (!o.addr.includes('/p2p-circuit')) expect(o.direction).toBe('inbound');
  });
});
