import { afterEach, describe, expect, it, vi } from 'vitest';
import { PING_PROTOCOL } from '../../src/net/protocols.ts';
import { CidxNode } from '../../src/node/node.ts';
import { NodeCounters } from '../../src/rpc/node-counters.ts';

// libp2p's connection monitor pings every open connection and is the only part that sets a
// connection's `rtt`: a node whose `rtt` stays unset has sent no ping.

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.allSettled(cleanup.splice(0).map((f) => f()));
});

async function tcpNode(
  pingIntervalMs: number,
  bootstrap: string[],
): Promise<{ node: CidxNode; counters: NodeCounters }> {
  const counters = new NodeCounters();
  const node = await CidxNode.create({
    transport: 'tcp',
    listen: ['/ip4/127.0.0.1/tcp/0'],
    reachability: 'public',
    bootstrap,
    timing: { pingIntervalMs, requestTimeoutMs: 3_000, lookupTimeoutMs: 6_000 },
    ...counters.nodeOptions(),
  });
  cleanup.push(() => node.stop());
  await node.start();
  return { node, counters };
}

/** Waits until `a` has seen `n` ping streams on its connections, then says whether `b` pinged. */
async function bPingedWhileAPinged(bIntervalMs: number, n: number): Promise<boolean> {
  const a = await tcpNode(100, []);
  const b = await tcpNode(bIntervalMs, a.node.addrs);
  await vi.waitFor(
    () => {
      expect(a.counters.snapshot().wire[PING_PROTOCOL]?.streams ?? 0).toBeGreaterThanOrEqual(n);
    },
    { timeout: 60_000, interval: 50 },
  );
  const conn = b.node.libp2p.getConnections(a.node.peerId)[0];
  expect(conn).toBeDefined();
  return conn?.rtt !== undefined;
}

describe('the connection monitor (timing.pingIntervalMs)', () => {
  it('pings every connection at the interval set', async () => {
    expect(await bPingedWhileAPinged(100, 10)).toBe(true);
  });

  it('0 turns it off: a node that never pings still answers the pings of others', async () => {
    expect(await bPingedWhileAPinged(0, 10)).toBe(false);
  });
});
