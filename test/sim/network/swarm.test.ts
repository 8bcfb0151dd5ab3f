import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimNetwork } from '../../../sim/network/network.ts';
import type { NodeOptions } from '../../../src/node/config.ts';
import type { CidxNode } from '../../../src/node/node.ts';
import { stopAll, variedProfiles, waitFor } from '../../support/swarm.ts';
import { cidxNode, plainNode } from './hosts.ts';

const NODES = 8;
const profiles = variedProfiles(5, 24, 11);

/** What a search returned, by the profile each community was created from (ids are random). */
type Answer = [profile: number, similarity: number][];

/**
 * Starts a swarm, creates one community per profile (owners in turn) and searches each profile
 * from another node; the answers name communities by the index of their profile.
 */
async function run(start: (i: number, o: Partial<NodeOptions>) => Promise<CidxNode>) {
  const nodes: CidxNode[] = [];
  try {
    for (let i = 0; i < NODES; i++) {
      const bootstrap = nodes.slice(0, 3).map((n) => n.addrs[0] as string);
      nodes.push(await start(i, { bootstrap }));
    }
    await waitFor(() => nodes.every((n) => n.info().peers.profiles >= 3), 60_000, 'routing tables');
    const byId = new Map<string, number>();
    for (const [i, p] of profiles.entries()) {
      const { id } = await (nodes[i % NODES] as CidxNode).create(p);
      byId.set(id, i);
    }
    const answers: Answer[] = [];
    const took: number[] = [];
    for (const [i, p] of profiles.entries()) {
      const t0 = performance.now();
      const found = await (nodes[(i + 3) % NODES] as CidxNode).search(p, { k: 3 });
      took.push(performance.now() - t0);
      answers.push(
        found
          .map((r): [number, number] => [byId.get(r.id) ?? -1, r.similarity])
          .sort((x, y) => y[1] - x[1] || x[0] - y[0]),
      );
    }
    return { nodes, answers, took };
  } catch (err) {
    await stopAll(nodes);
    throw err;
  }
}

type Run = Awaited<ReturnType<typeof run>>;

describe('a swarm on the network model (8 nodes, latency 100ms)', () => {
  const net = new SimNetwork({ seed: 9, latencyMs: 100 });
  let slow: Run;
  let looked: Run;
  let plain: Run;
  const noRoutes = { limits: { routeHops: 0 } };

  beforeAll(async () => {
    slow = await run((i, o) => cidxNode(net, `n${i}`, o));
    looked = await run((i, o) => cidxNode(net, `l${i}`, { ...o, ...noRoutes }));
    plain = await run((i, o) => plainNode(`n${i}`, o));
  }, 240_000);

  afterAll(async () => {
    await stopAll([...(slow?.nodes ?? []), ...(looked?.nodes ?? []), ...(plain?.nodes ?? [])]);
    net.close();
  });

  it('creates and searches with the same answers as without latency, routed or looked up', () => {
    expect(slow.answers).toEqual(plain.answers);
    expect(looked.answers).toEqual(plain.answers);
    // Each search found its own community first, exactly.
    for (const [i, a] of slow.answers.entries()) expect(a[0]).toEqual([i, 1]);
    // The searches' reads went over open connections.
    const routes = slow.nodes.reduce((s, n) => s + (n.traffic()['out:route']?.messages ?? 0), 0);
    expect(routes).toBeGreaterThan(0);
  });

  it('a search takes at least two round trips: a query, then the contacts of what it found', () => {
    // The model never delivers early: a lower bound holds however loaded the machine is.
    for (const ms of looked.took) expect(ms).toBeGreaterThanOrEqual(2 * 200);
    // Routed, at least one: a searcher that is itself a replica of some keys or of the
    // community's entry answers those without the network, but not the quorum of its keys.
    for (const ms of slow.took) expect(ms).toBeGreaterThanOrEqual(200);
  });

  it('no wait ran out: the deadlines followed the 200 ms round trips', () => {
    for (const n of [...slow.nodes, ...looked.nodes]) {
      const w = n.waits();
      expect([w.dial.timeouts, w.request.timeouts, w.lookup.timeouts]).toEqual([0, 0, 0]);
    }
  });

  it('the traffic crossed the model: round trips of 200 ms on every connection', () => {
    const s = net.stats();
    expect(s.connections).toBeGreaterThanOrEqual(NODES - 1);
    expect(s.rttP50Ms).toBe(200);
    expect(s.rttP95Ms).toBe(200);
    expect(s.bytes).toBeGreaterThan(0);
  });
});
