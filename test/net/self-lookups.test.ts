/**
 * A node's join looks its own id up once, on ProfilesDHT (bootstrap.ts): kad-dht's own
 * self-lookups, one second after each DHT starts, would repeat it on both DHTs. They come one
 * interval later, and keep coming.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { CidxNode } from '../../src/node/node.ts';
import { sameBytes } from '../../src/util/bytes.ts';
import { stopAll, TEST_TIMING, waitFor } from '../support/swarm.ts';

type Dht = 'profiles' | 'addresses';
interface Lookups {
  /** Lookups of the node's own id, by DHT. */
  self: Record<Dht, number>;
}

const nodes: CidxNode[] = [];
afterEach(async () => {
  await stopAll(nodes.splice(0));
});

/** Starts a node on the memory transport, counting its lookups of its own id from the start. */
async function counted(
  tag: string,
  i: number,
  bootstrap: string[],
  dht: { querySelfInterval?: number } = {},
): Promise<{ node: CidxNode; lookups: Lookups }> {
  const node = await CidxNode.create({
    transport: 'memory',
    listen: [`/memory/self-lookups-${tag}-${i}`],
    encryption: 'plaintext',
    bootstrap,
    timing: TEST_TIMING,
    dht,
  });
  nodes.push(node);
  const lookups: Lookups = { self: { profiles: 0, addresses: 0 } };
  const own = node.libp2p.peerId.toMultihash().bytes;
  for (const name of ['profiles', 'addresses'] as const) {
    // Every lookup of kad-dht, the join's and its own self-lookups alike, goes through here.
    const routing = (
      node.libp2p.services[name] as unknown as {
        peerRouting: { getClosestPeers(key: Uint8Array, o?: unknown): AsyncGenerator<unknown> };
      }
    ).peerRouting;
    const original = routing.getClosestPeers.bind(routing);
    routing.getClosestPeers = (key, o) => {
      if (sameBytes(key, own)) lookups.self[name]++;
      return original(key, o);
    };
  }
  await node.start();
  return { node, lookups };
}

describe("a join's self-lookup", () => {
  it('runs once, on ProfilesDHT, and both routing tables fill', async () => {
    const tag = `a${Date.now()}`;
    const first = await counted(tag, 0, []);
    const joined: Awaited<ReturnType<typeof counted>>[] = [];
    // Each joins through every node before it: a node that nobody dials after its own join
    // would know only the peers its one lookup met (one, for the second node of a swarm).
    for (let i = 1; i <= 4; i++) {
      const earlier = [first, ...joined].map(({ node }) => node.addrs[0] as string);
      joined.push(await counted(tag, i, earlier));
    }
    await waitFor(
      () => joined.every(({ node }) => node.info().peers.addresses >= 2),
      undefined,
      'AddressesDHT routing tables',
    );
    // kad-dht's first self-lookup used to come one second after start: give it that, and more.
    await sleep(2500);
    for (const { node, lookups } of joined) {
      expect(lookups.self).toEqual({ profiles: 1, addresses: 0 });
      expect(node.info().peers.profiles).toBeGreaterThanOrEqual(2);
      // Its closest peers tell the node a first estimate of the swarm's size. Of five nodes,
      // from one lookup, it is rough (the second node's is 1 / the distance of the one peer it
      // found: above 100,000 once in 100,000 joins), but it is there.
      expect(node.info().peers.swarmEstimate).toBeGreaterThan(0);
      expect(node.info().peers.swarmEstimate).toBeLessThan(100_000);
    }
    expect(first.node.info().peers.swarmEstimate).toBe(0);
    expect(first.lookups.self).toEqual({ profiles: 0, addresses: 0 });
  });

  it("leaves kad-dht's periodic self-lookups running on both DHTs", async () => {
    const tag = `b${Date.now()}`;
    const first = await counted(tag, 0, []);
    const other = await counted(tag, 1, [first.node.addrs[0] as string], {
      querySelfInterval: 200,
    });
    await waitFor(
      () => other.lookups.self.profiles >= 2 && other.lookups.self.addresses >= 1,
      undefined,
      "kad-dht's self-lookups",
    );
  });
});
